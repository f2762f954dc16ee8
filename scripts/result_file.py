"""The cases of a fla-bench result file, as written (RESULT.json) or xz-compressed (RESULT.json.xz, as the
runs under results/baselines/ are kept), for the scripts that read them; read_bytes reads any file kept either
way. xz is told by its magic bytes, as fla-bench and plots/fla_results.py tell it. A run that stopped early
(its time limit) leaves RESULT.json.partial, JSON Lines: the context, then {"case": ...} a line; its cases
read as a finished file's do."""

import json
import lzma

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
    data = read_bytes(path)
    if path.endswith((".partial", ".partial.xz")):
        lines = [json.loads(line) for line in data.splitlines() if line.strip()]
        return [line["case"] for line in lines[1:]]
    return json.loads(data)["cases"]
