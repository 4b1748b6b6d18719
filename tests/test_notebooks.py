"""Every notebook in notebooks/ runs from top to bottom on a small batch (nbclient)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# the datasets a notebook writes, relative to the test's folder; CATANSIM_NOTEBOOK_OUT is
# its "data" (02 puts its board set beside it); a notebook not named writes "data" itself
DATASETS = {"02-seats-and-boards.ipynb": ("data", "data-boards"),
            "04-robber.ipynb": ("data/switch", "data/rule", "data/policy", "data/my-board"),
            "05-shortages.ipynb": ("data/rule19", "data/supply", "data/my-board"),
            "06-tuning.ipynb": (),  # a tuning's outputs, no dataset
            "09-ladder.ipynb": (),  # a ladder's folder, no dataset
            "10-search-player.ipynb": (),  # one game, no dataset
            "11-analyse-a-game.ipynb": ()}  # one game's review, no dataset


def test_there_are_notebooks():
    assert [p.name for p in NOTEBOOKS][:1] == ["01-quickstart.ipynb"]


def test_the_notebooks_readme_describes_every_notebook():
    text = (ROOT / "notebooks" / "README.md").read_text()
    described = set(re.findall(r"^- `([\w-]+\.ipynb)`:", text, re.M))
    assert described == {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("CATANSIM_NOTEBOOK_GAMES", "300")
    monkeypatch.setenv("CATANSIM_NOTEBOOK_OUT", str(tmp_path / "data"))
    # the kernel imports this checkout's catansim, whatever is installed
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()  # raises CellExecutionError naming the cell that failed
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # a warning in a notebook is a defect a reader sees (pandas' PerformanceWarning of an
    # unsorted index, tqdm's "IProgress not found" without ipywidgets)
    warned = [o["text"] for o in outputs if o.get("name") == "stderr" and "Warning" in o["text"]]
    assert not warned, warned
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 2  # the figures were drawn (once each)
    for name in DATASETS.get(path.name, ("data",)):
        assert (tmp_path / name / "manifest.json").exists(), name
