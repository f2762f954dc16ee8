"""The cases of a fla-bench result file, as written (RESULT.json) or xz-compressed (RESULT.json.xz, as the
runs under results/baselines/ are kept), for the scripts that read them; read_bytes reads any file kept either
way. xz is told by its magic bytes, as fla-bench and plots/fla_results.py tell it. A run that stopped early
(its time limit) leaves RESULT.json.partial, JSON Lines whose last line may be cut short: plots/fla_results.py
reads it (the one reader of that form), and its cases read as a finished file's do."""

import json
import lzma
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "plots"))
import fla_results  # noqa: E402  (plots/ is not a package)

XZ_MAGIC = b"\xfd7zXZ\x00"


def read_bytes(path):
    """The file's bytes, decompressed where it is xz. Raises OSError, or ValueError for a damaged xz file."""
    with open(path, "rb") as file:
        data = file.read()
    if data.startswith(XZ_MAGIC):
        try:
            data = lzma.decompress(data)
        except lzma.LZMAError as error:
            raise ValueError(f"{path}: not a readable xz file ({error})") from error
    return data


def read_cases(path):
    """The file's "cases" list (a .partial file's cases so far, .partial.xz too). Raises OSError, ValueError (a
    damaged xz file too), KeyError or TypeError where it is not a readable result file."""
    if path.endswith((".partial", ".partial.xz")):
        try:
            return fla_results.read_result_file(path).cases
        except fla_results.InputError as error:
            raise ValueError(str(error)) from None
    return json.loads(read_bytes(path))["cases"]
