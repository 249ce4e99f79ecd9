"""The real side: runs the target program itself (target virtualenvs, the driver, `errcat confirm`).

What a release needs and which functions validate its arguments come from the profile's
`real:` section (`extractor.real_profile`); nothing here names a target.
"""
