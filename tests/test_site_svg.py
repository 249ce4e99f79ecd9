"""Flag neighbourhood pictures (output/site_svg.py): what is drawn, where, and how it is told apart."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from output.site_svg import LEGEND, MAX_NODES, neighbourhood_picture, picture_svg
from tests.site_catalogs import graph

G = graph([("--a", "--b", "conflicts"), ("--a", "--c", "requires"), ("--d", "--a", "implies"),
           ("--a", "--e", "constrains"), ("--x", "--y", "conflicts")],
          {f"e{i:02}": ["--a"] + (["--b"] if i % 2 else []) for i in range(60)} | {"far": ["--x"]})


def test_the_picture_holds_the_flag_its_related_flags_and_errors_up_to_the_limit():
    picture = neighbourhood_picture(G, "--a")
    ids = [n.id for n in picture.nodes]
    assert len(ids) == MAX_NODES and ids[0] == "flag:--a"
    assert {i for i in ids if i.startswith("flag:")} == {"flag:--a", "flag:--b", "flag:--c", "flag:--d", "flag:--e"}
    assert "error:far" not in ids and (picture.flags_total, picture.errors_total) == (4, 60)


@pytest.mark.parametrize(("src", "dst", "role"), [
    ("flag:--a", "flag:--b", "conflicts"), ("flag:--a", "flag:--c", "requires"),
    ("flag:--d", "flag:--a", "implies"), ("flag:--a", "flag:--e", "constrains"),
    ("error:e01", "flag:--b", "involves"),
])
def test_each_kind_of_edge_is_drawn_with_its_own_style(src, dst, role):
    picture = neighbourhood_picture(G, "--a")
    assert any((e.src, e.dst, e.role) == (src, dst, role) for e in picture.edges)
    svg = picture_svg(picture, lambda node: None)
    assert f'data-role="{role}"' in svg


def test_the_svg_is_well_formed_with_a_legend_and_links():
    svg = picture_svg(neighbourhood_picture(G, "--a"), lambda node: f"{node}.html")
    root = ET.fromstring(svg)
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {text for _, text in LEGEND} <= texts and "--a" in texts
    assert root.find("{http://www.w3.org/2000/svg}title") is not None
    assert 'href="error:e01.html"' in svg


def test_nodes_stay_inside_the_picture_and_the_layout_is_the_same_each_time():
    picture = neighbourhood_picture(G, "--a")
    assert all(0 < n.x < 960 and 0 < n.y < 600 for n in picture.nodes)
    assert picture_svg(picture, lambda n: None) == picture_svg(neighbourhood_picture(G, "--a"), lambda n: None)


def test_an_unknown_flag_is_a_key_error():
    with pytest.raises(KeyError):
        neighbourhood_picture(G, "--nope")
