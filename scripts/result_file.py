"""The cases of a fla-bench result file, as written (RESULT.json) or xz-compressed (RESULT.json.xz, as the
runs under results/baselines/*/*-versions/ are kept), for the scripts that read them."""

import json
import lzma


def read_cases(path):
    """The file's "cases" list. Raises OSError, ValueError (a damaged xz file too), KeyError or TypeError where
    it is not a readable result file."""
    opener = lzma.open if path.endswith(".xz") else open
    try:
        with opener(path, "rt") as text:
            return json.load(text)["cases"]
    except (lzma.LZMAError, EOFError) as error:
        raise ValueError(f"{path}: not a readable xz file ({error})") from error
