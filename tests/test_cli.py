"""The command line as a whole: the text a player or designer reads, checked line by line on the demo map
(golden files), the help, the error branches and ``python -m eidomap``.

The expected outputs are ``tests/data/cli/*.txt``.  After a deliberate change of
wording, regenerate them with ``EIDOMAP_GOLDEN=write python -m pytest
tests/test_cli.py`` and review the diff: a test that rewrites its own
expectation proves nothing, so it only does so when asked.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO, ROOT, hang_guard

from eidomap.cli import main

GOLDEN = Path(__file__).resolve().parent / "data" / "cli"
CATALOG = DEMO.parent / "demo-catalog.toml"

CASES = {
    "route-rolls": ["route", DEMO, "--from", "bouza-vella", "--to", "porto-norte", "--species", "human",
                    "--rolls", "3,5,2,6"],
    "route-dice": ["route", DEMO, "--from", "carballeira", "--to", "chousa", "--species", "human"],
    "route-forbid": ["route", DEMO, "--from", "carballeira", "--to", "chousa", "--species", "human",
                     "--partial", "forbid"],
    "route-teleport": ["route", DEMO, "--from", "carballeira", "--to", "aldea-do-cabo", "--species", "marino"],
    "route-unreachable": ["route", DEMO, "--from", "porto-norte", "--to", "porto-sur", "--species", "horse"],
    "route-from-pousa": ["route", DEMO, "--from", "cr-4", "--to", "porto-norte", "--species", "human",
                         "--rolls", "2,2"],
    "reach-roll": ["reach", DEMO, "--from", "porto-sur", "--species", "human", "--roll", "4"],
    "reach-turns": ["reach", DEMO, "--from", "porto-sur", "--species", "cow", "--turns", "2"],
    "reach-rolls": ["reach", DEMO, "--from", "porto-sur", "--species", "human", "--rolls", "4,2"],
    "species": ["species", "--catalog", CATALOG],
    "info": ["info", DEMO],
    "neighbors": ["neighbors", DEMO, "portela"],
    "validate": ["validate", DEMO, "--species", "human,boat"],
}


def _text(argv, capsys) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr().out
    return code, re.sub(re.escape(str(DEMO.parent.parent)) + "/", "", out)  # paths as in a checkout


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_output_line_by_line(name, capsys):
    code, out = _text(CASES[name], capsys)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("EIDOMAP_GOLDEN") == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"exit {code}\n{out}")
    want = path.read_text().splitlines()
    got = [f"exit {code}", *out.splitlines()]
    for k, (g, w) in enumerate(zip(got, want, strict=False), start=1):
        assert g == w, f"{path.name}, line {k}"
    assert len(got) == len(want), f"{path.name}: {len(got)} lines, expected {len(want)}"


def test_text_output_reads_as_words(capsys):
    """No internal names, None or broken plurals in any of it."""
    for argv in CASES.values():
        _, out = _text(argv, capsys)
        assert "None" not in out and "@teleport" not in out
        assert not re.search(r"\b1 (steps|rolls|regions|Eidos|turns|days)\b", out)
        assert not re.search(r"\b(board_adjacent|alight|road_eido|teleport_exit)\b", out)


@pytest.mark.parametrize("cmd", ["route", "reach", "species", "info", "neighbors", "plot", "generate", "validate",
                                 "fix", "import-tiled"])
def test_help_ends_with_an_example(cmd, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([cmd, "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0 and f"example:\n  eidomap {cmd} " in out
    if cmd in ("route", "reach"):
        options = out[out.index("options:"):]
        assert options.index("--from") < options.index("--species") < options.index("--catalog")


def test_python_dash_m_eidomap_runs_the_command_line():
    p = subprocess.run([sys.executable, "-m", "eidomap", "info", str(DEMO), "--json"], capture_output=True,
                       text=True, cwd=ROOT, timeout=hang_guard(2), check=False)
    assert p.returncode == 0 and json.loads(p.stdout)["eidos"] == 76



def test_the_program_ends_with_its_output_whole_and_its_exit_code(tmp_path, capsys):
    """``run`` ends the process without the interpreter's teardown: what was written to a file (block-buffered,
    not a terminal) is all there, and the exit code is main's."""
    argv = ["route", str(DEMO), "--from", "bouza-vella", "--to", "porto-norte", "--species", "human", "--rolls",
            "3,5,2,6"]
    assert main(argv) == 0
    expected = capsys.readouterr().out
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        p = subprocess.run([sys.executable, "-m", "eidomap", *argv], stdout=f, cwd=ROOT, timeout=hang_guard(2),
                           check=False)
    assert p.returncode == 0 and out.read_text() == expected
    with out.open("w") as f:
        p = subprocess.run([sys.executable, "-m", "eidomap", "route", str(tmp_path / "gone.geojson"), "--from", "a",
                            "--to", "b", "--species", "human"], stdout=f, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                           timeout=hang_guard(2), check=False)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "gone.geojson" in p.stderr


@pytest.mark.parametrize(("error", "code", "said"), [
    (BrokenPipeError(), 0, ""),
    (KeyboardInterrupt(), 130, "eidomap: interrupted"),
    (FileNotFoundError(2, "No such file or directory", "gone.geojson"), 2, "gone.geojson: No such file or directory"),
    (TypeError("a bug\nover two lines"), 3, "internal error (TypeError: a bug\\nover two lines); please report"),
])
def test_command_line_error_branches(monkeypatch, capsys, error, code, said):
    from eidomap.cli import plan

    def boom(args, **_):
        raise error

    monkeypatch.setattr(plan, "load_map", boom)
    assert main(["route", str(DEMO), "--from", "a", "--to", "b", "--species", "human"]) == code
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and err.count("\n") == (1 if said else 0)


def test_debug_shows_the_traceback_above_the_line(monkeypatch, capsys):
    from eidomap.cli import plan

    def boom(args, **_):
        raise TypeError("a bug")

    monkeypatch.setattr(plan, "load_map", boom)
    assert main(["route", str(DEMO), "--from", "a", "--to", "b", "--species", "human", "--debug"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and 'raise TypeError("a bug")' in err
    assert err.splitlines()[-1].startswith("eidomap: internal error (TypeError: a bug)")


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: eidomap" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "words"), [
    (["batch", str(DEMO), "--species", "human", "--out", "x", "--executor", "slurm"], "'local', 'dask', 'serial'"),
    (["batch", str(DEMO), "--species", "human", "--out", "x", "--partial", "debt"], "'carry', 'forbid'"),
    (["route", str(DEMO), "--from", "a", "--to", "b", "--species", "human", "--partial", "debt"], "'carry', 'forbid'"),
])
def test_a_mode_given_wrong_lists_its_words(argv, words, capsys):
    """The choices are the modes' words (argparse once printed the enum members: <Executor.LOCAL: 'local'>)."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"(choose from {words})" in err and "<" not in err


def _options(parser, path=()):
    """Every option of every command of ``parser``: ``(command words, action)``."""
    import argparse

    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _options(sub, (*path, name))
        elif a.option_strings and a.help != argparse.SUPPRESS:
            yield path, a


def test_every_option_says_what_it_does_and_names_its_value_as_every_command_does():
    """--help of every command: each option has its sentence, and one that takes a value names it (a choice lists
    its choices); the same flag names its value the same way everywhere (--png OUT), --species as one species S,
    several S,... or all."""
    from eidomap.cli import build_parser

    named: dict[str, set] = {}
    for path, a in _options(build_parser()):
        where = f"{' '.join(path)} {a.option_strings[-1]}"
        assert a.help, where
        if a.nargs != 0:
            assert a.metavar or a.choices, where
            named.setdefault(a.option_strings[-1], set()).add(a.metavar)
    assert named["--png"] == {"OUT"} and named["--catalog"] == {"FILE"}
    assert named["--species"] <= {"S", "S,...", "S,...|all"}


def test_a_warning_not_eidomaps_is_handed_whole_to_pythons_own_showwarning():
    """Only eidomap's warnings become ``eidomap: warning:`` lines; any other goes to the showwarning the command
    found, every argument as given (the file to write it to among them)."""
    import io

    from eidomap.cli._common import warning_line

    seen = []
    shown = warning_line(lambda *a: seen.append(a), None)
    out = io.StringIO()
    shown("deprecated", DeprecationWarning, "x.py", 3, out, "line")
    assert seen == [("deprecated", DeprecationWarning, "x.py", 3, out, "line")]


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_before_or_after_the_command_adds_the_traceback(where, capsys, tmp_path):
    """``eidomap --debug info MAP`` and ``eidomap info MAP --debug`` alike: the one line, then the traceback."""
    argv = ["info", str(tmp_path / "absent.geojson")]
    assert main(["--debug", *argv] if where == "before" else [*argv, "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and err.rstrip().splitlines()[-1].startswith("eidomap: ")


def test_a_warning_not_eidomaps_raised_by_a_command_is_shown_as_python_shows_it(capsys, monkeypatch):
    """A library's own warning during a command (here while the map loads) goes to Python's own showwarning (two
    lines on stderr, or whatever the program set), not an ``eidomap: warning:`` line, and the command goes on."""
    import warnings

    from eidomap.model import map as model

    real = model.load

    def load(*args, **kwargs):
        warnings.warn("a library's own warning", UserWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(model, "load", load)
    with pytest.warns(UserWarning, match="^a library's own warning$"):  # (pytest records what Python would show)
        assert main(["info", str(DEMO)]) == 0
    out, err = capsys.readouterr()
    assert "eidomap: warning" not in err and "76" in out
