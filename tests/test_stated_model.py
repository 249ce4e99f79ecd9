"""analyzers.stated_model: the model an example's command names decides every model
property naming its architecture, as one model would."""
from __future__ import annotations

import pytest

from analyzers.eval_model import Model
from analyzers.examples import Examples
from analyzers.launch import Launch
from analyzers.stated_model import one_architecture, stated_model
from extractor.ir import And, Apply, Const, In, Or, Ref, RefKind, Truthy
from extractor.profile import ExampleRules

EXAMPLES = Examples(ExampleRules(model="model_path", architecture=(r"(.*\.)?architectures(\[0\])?",)))
MODEL = Model(None, (), EXAMPLES)
FIRST = Ref(RefKind.MODEL, "hf_config.architectures[0]", "hf_config.architectures[0]")
LIST = Ref(RefKind.MODEL, "hf_config.architectures", "hf_config.architectures")
# ``arch in FAMILY and (architectures or [None])[0] in ("B",)``: two reads of one architecture
FIRST_ITEM = Apply("item", (Or((Truthy(LIST), Truthy(Const((None,))))), Const(0)), "(a or [None])[0]")
FIRE = And((In(FIRST, Const(("A", "B", "C"))), In(FIRST_ITEM, Const(("B",)))))


@pytest.mark.parametrize(("facts", "expected"), [
    # each read set alone by a search: the one name under which both hold
    ({"model:hf_config.architectures[0]": "A", "model:hf_config.architectures": ("B",)},
     {"model:hf_config.architectures[0]": "B", "model:hf_config.architectures": ("B",)}),
    # one model already: as it is
    ({"model:hf_config.architectures[0]": "B", "model:hf_config.architectures": ("B",)},
     {"model:hf_config.architectures[0]": "B", "model:hf_config.architectures": ("B",)}),
])
def test_one_architecture_names_one_model(facts, expected):
    assert one_architecture(FIRE, Launch({}, {}, facts), MODEL).facts == expected


def test_a_command_states_the_architecture_through_the_model_flag():
    launch = Launch({"tp_size": 2}, {}, {"model:hf_config.architectures": ("B",), "platform:is_cuda": True})
    stated = stated_model(launch, EXAMPLES)
    assert stated.flags == {"tp_size": 2, "model_path": "<model:B>"}
    assert stated.facts == {"model:hf_config.architectures": ("B",)}  # the platform is an assumption
