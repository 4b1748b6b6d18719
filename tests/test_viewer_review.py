"""A game's review in the viewer (``catansim.viewer.review``, ``static/review.js``): the
win-probability timeline under the board and the moves flagged, checked in Chromium
against the tables the page was made from, and the tables the page refuses.

The review's tables are made here from a real game's log with known values (no
rollouts): at every turn's start each seat's chance is its share of the visible
points plus one, with an interval around it; of the first seat's builds three are
flagged with known losses. What the page draws is read back from its SVG and text and
compared with those tables.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from test_viewer import browser, page  # noqa: F401  (the Chromium fixtures)

from catansim.engine import play_game
from catansim.errors import CatansimError
from catansim.logs import game_log
from catansim.results.review import MOVES, TIMELINE, empty, names
from catansim.settings import GameSettings
from catansim.viewer import game_view, inline_html, viewer_html, write_viewer
from catansim.viewer.frames import GLOBAL_FIELDS

BUILDS = ("build_road", "build_settlement", "build_city")
# the flagged moves' losses and intervals (percentage points chosen away from rounding ties)
LOSSES = [(0.0623, 0.0214, 0.1032), (0.1481, 0.0907, 0.2049), (0.0352, 0.0048, 0.0661)]


@pytest.fixture(scope="module")
def game():
    """A game of four default players (seed 7, 381 events): (header, events)."""
    s = GameSettings(n_players=4, strategies=("default",) * 4, layout="variable")
    return game_log(play_game(7, settings=s, log=True))


def turns_of(header: dict, events: list[dict]) -> list[int]:
    """The game's turn after each event, as the viewer's data has it."""
    out, turn = [], 0
    for step in game_view(header, events)["steps"]:
        turn = step["globals"][GLOBAL_FIELDS.index("turn")] if "globals" in step else turn
        out.append(turn)
    return out


def review_tables(header: dict, events: list[dict], played=None) -> tuple:
    """Known timeline and moves tables for a log (``played``: the words of the moves)."""
    n, turns = header["n_players"], turns_of(header, events)
    vp, rows = [0] * n, []
    at = [k for k, ev in enumerate(events) if ev["e"] == "turn_start"] + [len(events) - 1]
    for k, ev in enumerate(events):
        if ev["e"] in ("setup_settlement", "build_settlement", "build_city"):
            vp[ev["p"]] += 1
        if k in at:
            total = sum(vp) + n
            for p in range(n):
                win = (vp[p] + 1) / total
                rows.append({"event": k, "turn": turns[k], "seat": p, "win": win,
                             "win_low": max(0.0, win - 0.05), "win_high": min(1.0, win + 0.05),
                             "rollouts": 200, "observer": -1})
    timeline = pd.DataFrame(rows, columns=names(TIMELINE)).astype(
        {c: d for c, d, _ in TIMELINE})
    text = game_view(header, events)["text"]
    mine = [k for k, ev in enumerate(events) if ev["e"] in BUILDS and ev["p"] == 0]
    flagged = {mine[1]: LOSSES[0], mine[len(mine) // 2]: LOSSES[1], mine[-1]: LOSSES[2]}
    moves = []
    for i, k in enumerate(mine):
        loss, low, high = flagged.get(k, (0.004, -0.012, 0.02))
        moves.append({"event": k, "turn": turns[k], "seat": 0, "decision": "main",
                      "played": played[i % len(played)] if played else text[k],
                      "best": "end the turn" if i % 2 else "build a city",
                      "win_played": 0.3, "win_best": 0.3 + loss, "loss": loss,
                      "loss_low": low, "loss_high": high, "rollouts": 100,
                      "flagged": k in flagged})
    moves = pd.DataFrame(moves, columns=names(MOVES)).astype({c: d for c, d, _ in MOVES})
    return timeline, moves


def expected_words(row) -> str:
    """A flagged move as the list words it: "played X, best Y, −Z points (low to high)"."""
    return (f"played {row.played}, best {row.best}, −{100 * row.loss:.1f} points "
            f"({100 * row.loss_low:.1f} to {100 * row.loss_high:.1f})")


# --- in the browser ---------------------------------------------------------------------------


def _timeline(pg) -> dict:
    return pg.evaluate("""() => {
        const num = (e, a) => Number(e.getAttribute(a));
        return {
            step: Number(document.body.dataset.step),
            points: [...document.querySelectorAll('#timeline circle.point')].map(c => ({
                seat: num(c, 'data-seat'), event: num(c, 'data-event'),
                win: num(c, 'data-win'), cx: num(c, 'cx'), cy: num(c, 'cy')})),
            flags: [...document.querySelectorAll('#timeline .flag')].map(
                f => num(f, 'data-event')),
            cursor: {event: num(document.querySelector('#timeline .cursor'), 'data-event'),
                     x: num(document.querySelector('#timeline .cursor'), 'x1')},
            now: document.getElementById('review-now').textContent,
            items: [...document.querySelectorAll('#flagged li')].map(li => ({
                event: Number(li.dataset.event), current: li.classList.contains('current'),
                words: li.querySelector('.words').textContent,
                when: li.querySelector('.when').textContent})),
            caption: document.getElementById('flagged-caption').textContent};
    }""")


def test_the_timeline_draws_the_table_and_follows_the_slider(page, game, tmp_path):  # noqa: F811
    h, e = game
    timeline, moves = review_tables(h, e)
    path = write_viewer(tmp_path / "review.html", h, e, timeline=timeline, moves=moves)
    page.goto(path.as_uri())
    shown = _timeline(page)
    # one point per row of the table, at its event and chance
    for p in range(4):
        rows = timeline[timeline.seat == p].sort_values("event")
        pts = [x for x in shown["points"] if x["seat"] == p]
        assert len(pts) == len(rows) > 20
        assert [x["event"] for x in pts] == rows.event.tolist()
        assert [x["win"] for x in pts] == pytest.approx(rows.win.tolist(), abs=5e-5)
        # later events further right; a higher chance higher up (smaller y)
        assert all(a["cx"] < b["cx"] for a, b in zip(pts, pts[1:], strict=False))
    by_event = {}
    for x in shown["points"]:
        by_event.setdefault(x["event"], []).append(x)
    for xs in by_event.values():
        order = sorted(xs, key=lambda x: x["win"])
        assert all(a["cy"] >= b["cy"] for a, b in zip(order, order[1:], strict=False))
    # the cursor follows the slider, at the x of the points of its event
    assert shown["cursor"]["event"] == 0
    for k in [int(timeline.event.iloc[40]), int(timeline.event.iloc[-1]), 0]:
        page.locator("#slider").fill(str(k))
        shown = _timeline(page)
        assert shown["step"] == shown["cursor"]["event"] == k
        if k in by_event:
            assert shown["cursor"]["x"] == pytest.approx(by_event[k][0]["cx"])
    # the chances at the step: each seat's at the last position up to it
    k = int(timeline.event.iloc[40]) + 1  # the roll after a turn's start
    page.locator("#slider").fill(str(k))
    last = timeline[timeline.event <= k]
    last = last[last.event == last.event.max()].sort_values("seat")
    now = _timeline(page)["now"]
    assert now.startswith(f"As analysed after event {last.event.iloc[0] + 1}: ")
    for colour, row in zip(("red", "blue", "white", "orange"), last.itertuples(), strict=True):
        assert (f"{colour} {round(100 * row.win)}% ({round(100 * row.win_low)}% to "
                f"{round(100 * row.win_high)}%)") in now
    # a click on the chart moves the slider to the event under the pointer
    target = int(timeline.event.iloc[len(timeline) * 3 // 4])
    box = page.locator(f'#timeline circle.point[data-event="{target}"]').first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    shown = _timeline(page)
    assert abs(shown["step"] - target) <= 1
    assert shown["cursor"]["event"] == shown["step"]
    assert page.evaluate("Number(document.getElementById('slider').value)") == shown["step"]
    assert page.errors == []


def test_the_flagged_moves_are_marked_listed_and_jumped_to(page, game, tmp_path):  # noqa: F811
    h, e = game
    timeline, moves = review_tables(h, e)
    turns = turns_of(h, e)
    path = write_viewer(tmp_path / "review.html", h, e, timeline=timeline, moves=moves)
    page.goto(path.as_uri())
    flagged = moves[moves.flagged].sort_values("event")
    shown = _timeline(page)
    assert shown["flags"] == flagged.event.tolist()
    assert [x["event"] for x in shown["items"]] == flagged.event.tolist()
    assert [x["words"] for x in shown["items"]] == [expected_words(r)
                                                    for r in flagged.itertuples()]
    assert [x["when"] for x in shown["items"]] == [
        f"turn {turns[k]} · event {k + 1} · main" for k in flagged.event]
    assert shown["caption"] == (f"Moves flagged: 3 of the {len(moves)} decisions of red "
                                "(seat 0) reviewed")
    assert not any(x["current"] for x in shown["items"])
    for i in (1, 0, 2):  # a click on an item of the list moves to its event
        k = int(flagged.event.iloc[i])
        page.locator("#flagged button.jump").nth(i).click()
        shown = _timeline(page)
        assert shown["step"] == shown["cursor"]["event"] == k
        assert [x["current"] for x in shown["items"]] == [j == i for j in range(3)]
        assert page.locator("#current-line").text_content() == moves.set_index(
            "event").played[k]
    page.locator("#first").click()
    page.locator("#timeline .flag").nth(1).click()  # and a click on its mark on the timeline
    assert _timeline(page)["step"] == int(flagged.event.iloc[1])
    assert page.errors == []


def test_words_of_the_review_are_text_in_the_page(page, game, tmp_path):  # noqa: F811
    """The option words reach the page as text: markup shows as its characters, runs
    nothing, and cannot close the page's script elements."""
    h, e = game
    hostile = ["<img src=x onerror=alert(1)>", "</script><script>alert(2)</script><!--",
               "a & b \"quoted\" 'single'"]
    timeline, moves = review_tables(h, e, played=hostile)
    moves["best"] = "<b id=bold>best</b>"
    moves["decision"] = "<i>main</i>"
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    html = viewer_html(h, e, timeline=timeline, moves=moves)
    assert html.count("</script>") == 4 and "<!--" not in html  # two data, two code
    path = tmp_path / "hostile.html"
    path.write_text(html)
    page.goto(path.as_uri())
    items = _timeline(page)["items"]
    flagged = moves[moves.flagged].sort_values("event")
    assert [x["words"] for x in items] == [expected_words(r) for r in flagged.itertuples()]
    assert all(x["when"].endswith("· <i>main</i>") for x in items)
    assert page.evaluate("document.querySelectorAll('body img, #bold, #flagged i').length") == 0
    assert dialogs == [] and page.errors == []


def test_the_review_runs_inside_a_notebook_frame(page, game, tmp_path):  # noqa: F811
    h, e = game
    timeline, moves = review_tables(h, e)
    doc = tmp_path / "notebook.html"
    framed = inline_html(h, e, timeline=timeline, moves=moves)
    assert 'height:1160px' in framed
    doc.write_text(f"<!DOCTYPE html><html><body>{framed}</body></html>")
    page.goto(doc.as_uri())
    frame = page.frames[1]
    frame.wait_for_selector("#timeline circle.point")
    frame.locator("#flagged button.jump").first.click()
    assert frame.evaluate("document.body.dataset.step") == str(
        int(moves[moves.flagged].event.min()))
    assert page.errors == []


# --- without a review, or with part of one --------------------------------------------------


def test_a_page_without_review_has_no_timeline(page, game, tmp_path):  # noqa: F811
    h, e = game
    plain = viewer_html(h, e)
    assert viewer_html(h, e, timeline=None, moves=None) == plain
    # tables without rows are no review: the same page
    assert viewer_html(h, e, timeline=empty(TIMELINE), moves=empty(MOVES)) == plain
    assert not re.search(r'id="(review|timeline|review-data|flagged)', plain)
    path = tmp_path / "plain.html"
    path.write_text(plain)
    page.goto(path.as_uri())
    got = page.evaluate("""() => [document.querySelectorAll(
        '#review, #timeline, #review-moves, #flagged, #review-data').length,
        typeof window.catansimViewer]""")
    assert got == [0, "object"]
    page.click("#next")
    assert page.evaluate("document.body.dataset.step") == "1"
    assert page.errors == []


def test_a_timeline_without_moves_and_moves_without_timeline(page, game, tmp_path):  # noqa: F811
    h, e = game
    timeline, moves = review_tables(h, e)
    path = write_viewer(tmp_path / "t.html", h, e, timeline=timeline)
    page.goto(path.as_uri())
    counts = """() => ['#timeline circle.point', '#timeline .flag', '#flagged li',
        '#review-moves'].map(s => document.querySelectorAll(s).length)"""
    assert page.evaluate(counts) == [len(timeline), 0, 0, 0]
    path = write_viewer(tmp_path / "m.html", h, e, moves=moves)
    page.goto(path.as_uri())
    assert page.evaluate(counts) == [0, 0, 3, 1]
    page.locator("#flagged button.jump").last.click()
    assert page.evaluate("document.body.dataset.step") == str(int(moves[moves.flagged]
                                                                  .event.max()))
    none = moves.assign(flagged=False)  # every decision reviewed, none flagged
    path = write_viewer(tmp_path / "n.html", h, e, moves=none)
    page.goto(path.as_uri())
    assert page.locator("#flagged-caption").text_content() == (
        f"No move flagged among the {len(moves)} decisions of red (seat 0) reviewed")
    assert page.errors == []


def test_the_review_data_carries_the_table(game):
    """What the page is given: per seat its rows in event order; the flagged moves."""
    h, e = game
    timeline, moves = review_tables(h, e)
    shuffled = timeline.sample(frac=1, random_state=1)
    html = viewer_html(h, e, timeline=shuffled, moves=moves)
    m = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', html, re.S)
    data = json.loads(m.group(1))
    for p, pts in enumerate(data["timeline"]["seats"]):
        rows = timeline[timeline.seat == p]
        assert pts == [[int(r.event), pytest.approx(r.win, abs=5e-5),
                        pytest.approx(r.win_low, abs=5e-5), pytest.approx(r.win_high, abs=5e-5)]
                       for r in rows.itertuples()]
    assert data["timeline"]["observer"] == -1 and data["timeline"]["rollouts"] == [200, 200]
    assert data["moves"]["decisions"] == len(moves) and data["moves"]["seats"] == [0]
    assert [f["event"] for f in data["moves"]["flagged"]] == sorted(
        moves[moves.flagged].event.tolist())


# --- bad tables ----------------------------------------------------------------------------


def _set(frame, column, row, value):
    frame = frame.copy()
    frame[column] = frame[column].astype(object)
    frame.loc[row, column] = value
    return frame


@pytest.mark.parametrize("table, change, message", [
    ("timeline", lambda t, n: t.drop(columns="win_low"),
     "timeline: no column 'win_low'; allowed: a frame with the columns event, turn, seat, win, "
     "win_low, win_high, rollouts, observer (catansim.results.review.TIMELINE)"),
    ("timeline", lambda t, n: _set(t, "event", 3, n),
     "timeline.event[3]: {n}; allowed: an event of the log, 0..{last}"),
    ("timeline", lambda t, n: _set(t, "event", 0, -1),
     "timeline.event[0]: -1; allowed: an event of the log, 0..{last}"),
    ("timeline", lambda t, n: _set(t, "event", 2, 4.5),
     "timeline.event[2]: 4.5; allowed: an event of the log, 0..{last}"),
    ("timeline", lambda t, n: _set(t, "seat", 1, 4),
     "timeline.seat[1]: 4; allowed: a seat of the game, 0..3"),
    ("timeline", lambda t, n: _set(t, "win", 5, 1.2),
     "timeline.win[5]: 1.2; allowed: a probability in [0, 1]"),
    ("timeline", lambda t, n: _set(t, "win_high", 6, float("nan")),
     "timeline.win_high[6]: nan; allowed: a probability in [0, 1]"),
    ("timeline", lambda t, n: _set(t, "win_low", 7, -0.01),
     "timeline.win_low[7]: -0.01; allowed: a probability in [0, 1]"),
    ("timeline", lambda t, n: _set(t, "win", 4, "0.5"),
     "timeline.win[4]: '0.5'; allowed: a probability in [0, 1]"),
    ("timeline", lambda t, n: _set(t, "win_low", 0, 0.9),
     "timeline[0]: win_low 0.9, win "),
    ("timeline", lambda t, n: _set(t, "rollouts", 2, 0),
     "timeline.rollouts[2]: 0; allowed: a number of games, 1 or more"),
    ("timeline", lambda t, n: pd.concat([t, t.iloc[[5]]]),
     "timeline[{rows}]: event {event5}, seat 1 again; allowed: one row per event and seat"),
    ("timeline", lambda t, n: _set(t, "observer", 9, 2),
     "timeline.observer: several observers [-1, 2]; allowed: one observer per review"),
    ("timeline", lambda t, n: _set(t, "observer", 9, 5),
     "timeline.observer[9]: 5; allowed: a seat of the game, 0..3, or -1 (the full state)"),
    ("timeline", lambda t, n: t.to_dict(),
     "timeline: expected a pandas DataFrame, got dict; allowed: a frame with the columns of "
     "catansim.results.review.TIMELINE"),
    ("moves", lambda m, n: m.drop(columns=["best", "flagged"]),
     "moves: no column 'best'; allowed: a frame with the columns event, turn, seat, decision, "
     "played, best, win_played, win_best, loss, loss_low, loss_high, rollouts, flagged "
     "(catansim.results.review.MOVES)"),
    ("moves", lambda m, n: _set(m, "event", 1, n + 10),
     "moves.event[1]: {n10}; allowed: an event of the log, 0..{last}"),
    ("moves", lambda m, n: _set(m, "played", 2, None),
     "moves.played[2]: None; allowed: a non-empty string"),
    ("moves", lambda m, n: _set(m, "win_best", 0, 1.5),
     "moves.win_best[0]: 1.5; allowed: a probability in [0, 1]"),
    ("moves", lambda m, n: _set(m, "loss", 0, -1.5),
     "moves.loss[0]: -1.5; allowed: a difference of probabilities, in [-1, 1]"),
    ("moves", lambda m, n: _set(m, "loss_high", 0, -0.5),
     "moves[0]: loss_low -0.012, loss 0.004, loss_high -0.5; allowed: loss_low <= loss <= "
     "loss_high"),
    ("moves", lambda m, n: _set(m, "flagged", 0, "yes"),
     "moves.flagged[0]: 'yes'; allowed: true or false"),
    ("moves", lambda m, n: _set(m, "flagged", 0, True),
     "moves.flagged[0]: flagged with loss_low -0.012; allowed: a flagged move's loss_low "
     "above 0 (a cost beyond the rollouts' noise)"),
])
def test_a_table_the_page_cannot_draw_is_a_one_line_error(table, change, message, game,
                                                          tmp_path):
    h, e = game
    frames = dict(zip(("timeline", "moves"), review_tables(h, e), strict=True))
    n, t = len(e), frames["timeline"]
    expected = message.format(n=n, last=n - 1, n10=n + 10, rows=len(t), event5=t.event[5])
    frames[table] = change(frames[table], n)
    path = tmp_path / "bad.html"
    with pytest.raises(CatansimError) as info:
        write_viewer(path, h, e, **frames)
    assert str(info.value).startswith(expected)
    assert "\n" not in str(info.value)
    assert not path.exists()
