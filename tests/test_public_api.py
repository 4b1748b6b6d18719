"""The public API the README shows: top-level names, the engine calls, every command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import catansim
from catansim.cli import _command_names, cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_top_level_names_are_the_documented_functions():
    from catansim import engine, results, rules, settings

    assert catansim.play_game is engine.play_game
    assert catansim.play_batch is engine.play_batch
    assert catansim.GameSettings is settings.GameSettings
    assert catansim.Rules is rules.Rules
    assert catansim.load is results.load
    with pytest.raises(AttributeError):
        catansim.nothing_here  # noqa: B018


# The names whose one home is ``catansim.settings``: nothing imports them from the
# engine or the step interface, which use them.
SETTINGS_NAMES = ("GAME_LAYOUTS", "GameResult", "GameSettings", "openings_from_seats",
                  "openings_from_strings", "settings_of", "validate_openings")
FROM_ELSEWHERE = re.compile(r"from (?:catansim\.|\.+)(?:engine|game) import (\([^)]*\)|[^\n]*)")


def test_the_settings_of_a_game_are_imported_from_their_one_home():
    root = Path(__file__).resolve().parent.parent
    found = []
    for folder in ("catansim", "tests", "benchmarks", "experiments", "docs", "notebooks"):
        for path in (root / folder).rglob("*"):
            if path.suffix not in (".py", ".md", ".ipynb") or "history" in path.parts:
                continue
            for m in FROM_ELSEWHERE.finditer(path.read_text()):
                names = set(re.findall(r"\w+", m.group(1)))
                if names & set(SETTINGS_NAMES):
                    found.append(f"{path.relative_to(root)}: {sorted(names & set(SETTINGS_NAMES))}")
    assert not found, f"import these from catansim.settings: {found}"
    assert FROM_ELSEWHERE.search("from catansim." + "engine import (\n    GameSettings,\n)")


def test_the_readme_python_example_runs():
    block = re.search(r"```python\n(from catansim import play_game\n.*?)```", README, re.S)
    assert block, "README lost its Python example"
    scope: dict = {}
    exec(block.group(1).replace("g.winner, g.turns, g.vp", "out = (g.winner, g.turns, g.vp)"),
         scope)
    winner, turns, vp = scope["out"]
    assert turns > 0 and len(vp) == 4 and (winner is None or vp[winner] >= 10)


def test_every_command_the_readme_names_exists_and_has_help():
    shell = "\n".join(re.findall(r"```bash\n(.*?)```", README, re.S))
    named = set(re.findall(r"^catansim (\w+)", shell, re.M)) - {"-"}
    assert named <= set(_command_names()), named - set(_command_names())
    runner = CliRunner()
    out = runner.invoke(cli, ["--help"]).output
    for name in _command_names():
        assert name in out
        res = runner.invoke(cli, [name, "--help"])
        assert res.exit_code == 0 and "Usage:" in res.output, name


def test_every_package_says_what_lives_there_and_what_it_may_import():
    import importlib
    import pkgutil

    for mod in pkgutil.iter_modules(catansim.__path__):
        if not mod.ispkg:
            continue
        doc = importlib.import_module(f"catansim.{mod.name}").__doc__ or ""
        assert "May import" in doc, f"catansim.{mod.name} docstring"


def test_the_readme_runs_in_order_never_share_a_dataset_folder_across_settings():
    """A README reader runs its commands in order: two ``catansim run`` of other
    settings into one folder would be refused (the dataset holds other settings)."""
    from catansim.runs.experiment import load_experiment

    root = Path(__file__).resolve().parent.parent
    shell = "\n".join(re.findall(r"```bash\n(.*?)```", README, re.S))
    runs = re.findall(r"^catansim run (\S+\.toml)([^#\n]*)", shell, re.M)
    assert len(runs) >= 3, runs
    settings_of: dict = {}
    for path, options in runs:
        opts = options.split()
        out = opts[opts.index("--out") + 1] if "--out" in opts else None
        exp = load_experiment(root / path)
        folder = Path(out or exp.output)
        same = {k: v for k, v in zip(opts[::2], opts[1::2], strict=False)
                if k in ("--games", "--seed", "--batch-size")}
        settings = (path, tuple(sorted(same.items())))
        assert settings_of.setdefault(folder, settings) == settings, (folder, settings)
    # and git ignores each of those folders
    ignored = (root / ".gitignore").read_text().splitlines()
    for folder in settings_of:
        assert f"{folder}/" in ignored, folder
