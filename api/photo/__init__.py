"""One photo (or one live frame) from pixels to a judged answer.

The room where `vision` and `solver` meet: `pipeline` runs the stages, `correct` makes the
reading obey the rules, `entries` judges a person's entries, `schema` is the result's
contract, `live` follows a camera, `evaluation` scores readings against labelled photos.
"""
