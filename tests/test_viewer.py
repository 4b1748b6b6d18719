"""The game viewer (``catansim.viewer``): its data, its page, the commands that write it, the
notebook display, and the page itself driven in a real browser (Playwright on Debian's
chromium).

The oracle is ``public_counts``: each seat's hand size, development cards, visible and
total victory points after every event, worked out here from the events alone by card
arithmetic (what each event adds and takes), not by the checker the viewer replays with.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest
from cli_harness import one_line, run_main
from test_replay import LOG_A, RULES_A, header

from catansim.constants import COST_CITY, COST_DEV_CARD, COST_ROAD, COST_SETTLEMENT
from catansim.engine import play_game
from catansim.logs import game_log, read_log, replay
from catansim.rules import Rules
from catansim.settings import GameSettings
from catansim.viewer import (
    GLOBAL_FIELDS,
    SEAT_FIELDS,
    game_view,
    inline_html,
    viewer_html,
    write_viewer,
)

COST = {"build_road": sum(COST_ROAD), "build_settlement": sum(COST_SETTLEMENT),
        "build_city": sum(COST_CITY), "buy_dev": sum(COST_DEV_CARD)}


def public_counts(n: int, events: list[dict], robber: int = -1) -> list[dict]:
    """After every event: ``hand``, ``dev``, ``vp_visible``, ``vp_total`` and ``tiles`` per
    seat, the ``turn`` and the ``robber``'s hex (``robber``: where it starts)."""
    hand, dev, vp, vp_cards = [0] * n, [0] * n, [0] * n, [0] * n
    tiles = {"longest_route": None, "largest_army": None}
    turn, out = 0, []
    for ev in events:
        e, p = ev["e"], ev.get("p")
        if e == "turn_start":
            turn = ev["turn"]
        elif e == "robber":
            robber = ev["hex"]
        if e in ("starting_resources", "discard"):
            hand[p] += sum(ev["cards"]) * (1 if e == "starting_resources" else -1)
        elif e == "production":
            for q, g in enumerate(ev["gains"]):
                hand[q] += sum(g)
        elif e == "robber" and ev["stolen"] is not None:
            hand[ev["victim"]] -= 1
            hand[p] += 1
        elif e == "trade_bank":
            hand[p] += sum(ev["get"]) - sum(ev["give"])
        elif e == "trade_player":
            moved = sum(ev["get"]) - sum(ev["give"])
            hand[p] += moved
            hand[ev["partner"]] -= moved
        elif e in COST and not ev.get("free"):
            hand[p] -= COST[e]
        if e in ("setup_settlement", "build_settlement", "build_city"):
            vp[p] += 1  # a city replaces its settlement: one more
        if e == "buy_dev":
            dev[p] += 1
            vp_cards[p] += ev["card"] == "victory_point"
        if e == "play_dev":
            dev[p] -= 1
            if ev["card"] == "invention":
                hand[p] += sum(ev["cards"])
            elif ev["card"] == "monopoly":
                for q, k in enumerate(ev["taken"]):
                    hand[q] -= k
                    hand[p] += k
        if e in tiles:
            if tiles[e] is not None:
                vp[tiles[e]] -= 2
            tiles[e] = p
            if p is not None:
                vp[p] += 2
        out.append({"hand": list(hand), "dev": list(dev), "vp_visible": list(vp),
                    "vp_total": [v + c for v, c in zip(vp, vp_cards, strict=True)],
                    "tiles": [[t for t, q in tiles.items() if q == p] for p in range(n)],
                    "turn": turn, "robber": robber})
    return out


def full_states(view: dict) -> list[tuple[list, list]]:
    """Every step's (seat rows, global row), rebuilt from the view's changes."""
    seats, glob, out = [None] * view["n_players"], None, []
    for step in view["steps"]:
        for row in step.get("seats", []):
            seats[row[0]] = row[1:]
        glob = step.get("globals", glob)
        out.append(([list(r) for r in seats], list(glob)))
    return out


def _seat_value(row, name):
    return row[SEAT_FIELDS.index(name)]


def _hand(row):
    return sum(_seat_value(row, f"hand_{r}") for r in ("wood", "brick", "wool", "wheat", "ore"))


def _devs(row):
    return sum(row[i] for i, f in enumerate(SEAT_FIELDS) if f.startswith("dev_"))


# --- games to view --------------------------------------------------------------------


@pytest.fixture(scope="module")
def games():
    """Logs of engine games: the default strategy with 4 and 3 seats, random players,
    and random players without the robber and with an unlimited supply."""
    specs = [(7, GameSettings(n_players=4, strategies=("default",) * 4, layout="variable")),
             (11, GameSettings(n_players=3, strategies=("default",) * 3, layout="variable")),
             (5, GameSettings(n_players=4, strategies=("random",) * 4, layout="beginner")),
             (9, GameSettings(n_players=4, strategies=("default", "random", "default", "random"),
                              layout="random_numbers",
                              rules=Rules(robber="off", bank_per_resource=None)))]
    return [game_log(play_game(seed, settings=s, log=True)) for seed, s in specs]


@pytest.fixture(scope="module")
def typical(games, tmp_path_factory):
    """The default strategy's game as a page on disk: (path, header, events)."""
    h, e = games[0]
    path = tmp_path_factory.mktemp("viewer") / "game.html"
    write_viewer(path, h, e)
    return path, h, e


# --- the data -----------------------------------------------------------------------------


def test_the_oracle_agrees_with_the_logs_own_final_score(games):
    for h, e in games:
        assert public_counts(h["n_players"], e)[-1]["vp_total"] == e[-1]["vp"]


def test_every_step_shows_the_cards_and_points_the_events_add_up_to(games):
    for h, e in games:
        view = game_view(h, e)
        assert len(view["steps"]) == len(view["text"]) == len(e)
        expected = public_counts(h["n_players"], e, h["board"]["robber"])
        for k, (rows, glob) in enumerate(full_states(view)):
            g = dict(zip(GLOBAL_FIELDS, glob, strict=True))
            got = {"hand": [_hand(r) for r in rows], "dev": [_devs(r) for r in rows],
                   "vp_visible": [_seat_value(r, "vp_visible") for r in rows],
                   "vp_total": [_seat_value(r, "vp_total") for r in rows],
                   "turn": g["turn"], "robber": g["robber"]}
            assert got == {key: expected[k][key] for key in got}, (h["seed"], k, e[k])


@pytest.mark.parametrize("name", sorted(p.name for p in Path(__file__).with_name("golden")
                                         .glob("*.jsonl")))
def test_the_golden_logs_show_the_cards_and_points_the_events_add_up_to(name):
    h, e = read_log(Path(__file__).with_name("golden") / name)
    expected = public_counts(h["n_players"], e)
    states = full_states(game_view(h, e))
    assert [[_hand(r) for r in rows] for rows, _ in states] == [x["hand"] for x in expected]
    assert [[_seat_value(r, "vp_total") for r in rows] for rows, _ in states] == [
        x["vp_total"] for x in expected]


def test_the_pieces_and_tiles_follow_the_events(games):
    h, e = games[0]
    view = game_view(h, e)
    buildings, roads = {}, {}
    for step in view["steps"]:
        buildings.update({n: (p, lv) for n, p, lv in step.get("pieces", [])})
        roads.update({r: p for r, p in step.get("roads", [])})
    final = replay(h, e)
    ours = final.pieces()  # the engine's header numbers nodes as we do: the same indices
    assert len(buildings) == sum(1 for o in ours["node_owner"] if o >= 0)
    for n, (p, lv) in buildings.items():
        assert (ours["node_owner"][n], ours["node_level"][n]) == (p, lv)
    assert len(roads) == sum(1 for o in ours["edge_owner"] if o >= 0)
    states = full_states(view)
    last = dict(zip(GLOBAL_FIELDS, states[-1][1], strict=True))
    assert last["longest_route"] == (-1 if final.longest_route is None else final.longest_route)
    assert last["largest_army"] == (-1 if final.largest_army is None else final.largest_army)
    # pieces left: 15 roads, 5 settlements, 4 cities less what each seat has on the board
    for p, row in enumerate(states[-1][0]):
        mine = [lv for (q, lv) in buildings.values() if q == p]
        assert _seat_value(row, "roads_left") == 15 - sum(1 for q in roads.values() if q == p)
        assert _seat_value(row, "cities_left") == 4 - mine.count(2)
        assert _seat_value(row, "settlements_left") == 5 - mine.count(1)


def test_a_hand_written_log_shows_the_hands_worked_out_by_hand():
    """LOG_A of test_replay (an old writer: no first_turn) with its commented hands."""
    h = header(**RULES_A)
    view = game_view(h, LOG_A)
    states = full_states(view)
    k = next(i for i, ev in enumerate(LOG_A) if ev["e"] == "trade_player")
    rows = states[k][0]
    hands = [[_seat_value(rows[q], f"hand_{r}") for r in ("wood", "brick", "wool", "wheat",
                                                          "ore")] for q in range(4)]
    assert hands[0] == [1, 1, 1, 1, 1] and hands[2] == [2, 1, 0, 0, 0]
    rows = states[-1][0]
    assert [_seat_value(r, "vp_total") for r in rows] == [4, 2, 2, 2]
    assert [_seat_value(r, "vp_visible") for r in rows] == [3, 2, 2, 2]  # red's VP card
    assert _seat_value(rows[3], "knights") == 1
    assert view["text"][k] == "trades 1 wood to white for 1 wool, 1 ore"
    assert view["text"][-1] == "Game over: red (seat 0) wins"


def test_another_writers_numbering_draws_the_same_pieces_in_the_same_places():
    """The board is drawn from the header's coordinates, not our numbering."""
    h = header(**RULES_A)
    board = h["board"]
    nn, ne = len(board["nodes"]), len(board["edges"])
    foreign = dict(board, hexes=board["hexes"][::-1], nodes=board["nodes"][::-1],
                   edges=[[nn - 1 - a, nn - 1 - b] for a, b in board["edges"][::-1]],
                   harbors=[{"edge": ne - 1 - x["edge"], "kind": x["kind"]}
                            for x in board["harbors"]], robber=18 - board["robber"])
    events = copy.deepcopy(LOG_A)
    for ev in events:
        for key, size in (("node", nn), ("edge", ne), ("hex", 19)):
            if key in ev:
                ev[key] = size - 1 - ev[key]
    ours, theirs = game_view(h, LOG_A), game_view({**h, "board": foreign}, events)

    def drawn(view):
        nodes, edges, out = view["board"]["nodes"], view["board"]["edges"], set()
        for step in view["steps"]:
            out |= {("b", *nodes[n], p, lv) for n, p, lv in step.get("pieces", [])}
            out |= {("r", *sorted(tuple(nodes[a]) for a in edges[e]), p)
                    for e, p in step.get("roads", [])}
        return out

    assert drawn(ours) == drawn(theirs)
    assert ours["text"] != [] and len(ours["text"]) == len(theirs["text"])
    assert full_states(ours) != [] and [s[0] for s in full_states(ours)] == [
        s[0] for s in full_states(theirs)]


# --- the page -------------------------------------------------------------------------------


def _page_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


def test_the_page_is_self_contained_and_carries_the_data(games):
    h, e = games[0]
    page = viewer_html(h, e)
    assert page.startswith("<!DOCTYPE html>")
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # only the SVG namespace, never fetched
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", page)
    assert _page_data(page) == json.loads(json.dumps(game_view(h, e)))


def test_text_from_the_log_cannot_break_out_of_the_page(games):
    h, e = games[1]
    evil = "</script><script>alert(1)</script><!--"
    h = {**h, "strategies": [evil, *h["strategies"][1:]]}
    page = viewer_html(h, e)
    assert page.count("</script>") == 2 and "<!--" not in page  # the data's and the code's
    assert _page_data(page)["strategies"][0] == evil


def test_notebooks_show_the_viewer_of_a_game_and_of_a_replay(games):
    h, e = games[1]
    framed = inline_html(h, e)
    assert framed.startswith("<iframe srcdoc=\"&lt;!DOCTYPE html&gt;")
    replayed = replay(h, e)
    assert replayed._repr_html_() == framed
    assert replay(h, e, check=False).log == (h, e)
    game = play_game(11, settings=GameSettings(n_players=3, strategies=("default",) * 3,
                                               layout="variable"), log=True)
    assert game._repr_html_() == framed  # the same game as games[1]
    assert play_game(11, settings=game.settings, log=False)._repr_html_() is None


# --- the commands ---------------------------------------------------------------------------


def test_replay_and_play_write_the_same_page(tmp_path, capsys):
    log, from_log, played = tmp_path / "g.jsonl", tmp_path / "a.html", tmp_path / "b.html"
    code, out, err = run_main(["play", "--seed", 3, "--players", 3, "--strategies", "default",
                               "--log", log, "--html", played], capsys)
    assert code == 0 and f"wrote {played}" in out, err
    code, out, err = run_main(["replay", log, "--quiet", "--html", from_log], capsys)
    assert code == 0 and f"wrote {from_log}" in out, err
    assert from_log.read_text() == played.read_text()
    assert _page_data(played.read_text())["events"] == read_log(log)[1]


@pytest.mark.parametrize("argv, needle", [
    (["replay", "{log}", "--html", "{tmp}/none/x.html"], "--html: {tmp}/none/x.html: folder"),
    (["replay", "{log}", "--html", "{tmp}/x.txt"], "not a .html file name"),
    (["replay", "{tmp}", "--html", "{tmp}/x.html"], "is a folder"),
    (["play", "--html", "{tmp}"], "--html: {tmp}: is a folder"),
    (["play", "--games", "2", "--html", "{tmp}/x.html"], "--html: one page shows one game"),
])
def test_bad_html_paths_are_one_line_errors(argv, needle, tmp_path, capsys):
    log = _write_log(tmp_path / "g.jsonl", header(**RULES_A), LOG_A)
    fill = {"log": str(log), "tmp": str(tmp_path)}
    code, out, err = run_main([a.format(**fill) for a in argv], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("catansim: error:"), err
    assert needle.format(**fill) in lines[0]
    assert not list(tmp_path.glob("**/*.html"))


def _write_log(path: Path, h: dict, events: list[dict]) -> Path:
    h = {**h, "rules": {"first_turn": 0, **h["rules"]}}  # a file needs every rule key
    path.write_text("\n".join(json.dumps(x) for x in [h, *events]) + "\n")
    return path


def test_replay_html_of_a_log_that_breaks_a_rule_is_refused(tmp_path, capsys):
    h = header(**RULES_A)
    events = copy.deepcopy(LOG_A)
    events[-2]["node"] = events[0]["node"]  # a settlement on an occupied corner
    log = _write_log(tmp_path / "bad.jsonl", h, events)
    code, out, err = run_main(["replay", log, "--html", tmp_path / "x.html"], capsys)
    assert code == 2 and "event" in err and not (tmp_path / "x.html").exists()


# --- in a real browser ----------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (.ci/run apt-installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed "
                                   "(pip install -e '.[dev]')")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1400, "height": 1000})
    pg.errors = []
    pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
    pg.on("console", lambda msg: pg.errors.append(msg.text) if msg.type == "error" else None)
    pg.on("request", lambda req: pg.errors.append(f"request {req.url}")
          if not req.url.startswith("file://") else None)
    yield pg
    pg.close()


def _shown(pg) -> dict:
    """What the page shows now: the step, and per seat its data attributes."""
    return pg.evaluate("""() => ({
        step: Number(document.body.dataset.step),
        slider: Number(document.getElementById('slider').value),
        seats: [...document.querySelectorAll('section.seat')].map(s => ({
            vp_visible: Number(s.dataset.vpVisible), vp_total: Number(s.dataset.vpTotal),
            hand: Number(s.dataset.handSize), dev: Number(s.dataset.devCount),
            vp_text: s.querySelector('.vp').textContent,
            tiles: [...s.querySelectorAll('.tile')].map(t => t.textContent),
            cards_text: s.querySelector('.cards').textContent})),
        line: document.getElementById('current-line').textContent,
        position: document.getElementById('position').textContent,
        robber: Number(document.querySelector('#board .robber').getAttribute('data-hex'))})""")


def _check(shown: dict, expected: list[dict], text: list[str]) -> None:
    k = shown["step"]
    assert shown["slider"] == k
    exp = expected[k]
    for p, seat in enumerate(shown["seats"]):
        assert (seat["vp_visible"], seat["vp_total"], seat["hand"], seat["dev"]) == (
            exp["vp_visible"][p], exp["vp_total"][p], exp["hand"][p], exp["dev"][p]), (k, p)
        assert [t.lower().replace(" ", "_") for t in seat["tiles"]] == exp["tiles"][p], (k, p)
    assert shown["line"] == text[k]
    turn = f"turn {exp['turn']}" if exp["turn"] else "set-up"
    assert shown["position"].startswith(f"event {k + 1} of {len(expected)} · {turn} · ")
    assert shown["robber"] == exp["robber"]


def test_step_buttons_and_slider_show_each_events_state(page, typical, tmp_path):
    path, h, e = typical
    expected = public_counts(h["n_players"], e, h["board"]["robber"])
    text = game_view(h, e)["text"]
    page.goto(path.as_uri())
    shown = _shown(page)
    assert shown["step"] == 0 and len(shown["seats"]) == 4
    _check(shown, expected, text)
    for k in range(1, 25):  # the set-up and the first turns, one click each
        page.click("#next")
        shown = _shown(page)
        assert shown["step"] == k
        _check(shown, expected, text)
    page.screenshot(path=tmp_path / "after-24-clicks.png")
    n = len(e)
    for k in [*range(n - 1, -1, -1), n // 2]:  # the slider set to every event, backwards
        page.locator("#slider").fill(str(k))
        shown = _shown(page)
        assert shown["step"] == k
        _check(shown, expected, text)
    box = page.locator("#slider").bounding_box()  # the slider, clicked at 3/4 of its length
    page.mouse.click(box["x"] + 0.75 * box["width"], box["y"] + box["height"] / 2)
    shown = _shown(page)
    assert abs(shown["step"] - 0.75 * (n - 1)) < 0.05 * n
    _check(shown, expected, text)
    page.click("#prev")
    assert _shown(page)["step"] == shown["step"] - 1
    _check(_shown(page), expected, text)
    page.click("#next-turn")
    k = _shown(page)["step"]
    assert e[k]["e"] == "turn_start" and k > shown["step"] - 1
    _check(_shown(page), expected, text)
    page.click("#last")
    _check(_shown(page), expected, text)
    page.screenshot(path=tmp_path / "last.png")
    assert page.errors == []


def test_hidden_cards_are_counts_until_all_cards_are_shown(page, typical):
    path, h, e = typical
    expected = public_counts(h["n_players"], e)
    page.goto(path.as_uri() + f"#step={len(e) - 1}")
    shown = _shown(page)
    assert shown["step"] == len(e) - 1
    hidden = [p for p in range(4) if expected[-1]["vp_total"][p] != expected[-1]["vp_visible"][p]]
    for p, seat in enumerate(shown["seats"]):  # the public view: counts, visible points
        assert "(hidden)" in seat["cards_text"] and "wood" not in seat["cards_text"]
        assert seat["vp_text"] == f"{expected[-1]['vp_visible'][p]} VP"
    page.check("#show-all")
    view = game_view(h, e)
    rows = full_states(view)[-1][0]
    for p, seat in enumerate(_shown(page)["seats"]):
        for r in ("wood", "brick", "wool", "wheat", "ore"):
            assert f"{r} {_seat_value(rows[p], 'hand_' + r)}" in seat["cards_text"]
        total = expected[-1]["vp_total"][p]
        assert seat["vp_text"].startswith(f"{total} VP")
        assert ("shown" in seat["vp_text"]) == (p in hidden)
    page.uncheck("#show-all")
    assert "(hidden)" in _shown(page)["seats"][0]["cards_text"]
    assert page.errors == []


def test_the_charts_count_the_dice_rolled_so_far(page, typical):
    path, h, e = typical
    k = len(e) // 2
    page.goto(path.as_uri() + f"#step={k}")
    bars = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '#dice-chart rect.bar')].map(r => [r.dataset.sum, Number(r.dataset.count)]))""")
    rolled = [sum(ev["dice"]) for ev in e[: k + 1] if ev["e"] == "roll"]
    assert bars == {str(s): rolled.count(s) for s in range(2, 13)}
    assert page.locator("#production-chart polyline.series").count() == 4
    assert page.errors == []


def test_a_three_seat_game_without_robber_or_supply_limit_in_the_browser(page, games, tmp_path):
    for h, e in games[1:]:
        path = write_viewer(tmp_path / f"g{h['seed']}.html", h, e)
        expected = public_counts(h["n_players"], e, h["board"]["robber"])
        text = game_view(h, e)["text"]
        page.goto(path.as_uri())
        assert len(_shown(page)["seats"]) == h["n_players"]
        shown = page.locator("#board .robber").get_attribute("display")
        assert shown == ("none" if h["rules"]["robber"] == "off" else "inline")
        for k in (0, len(e) // 2, len(e) - 1):
            page.locator("#slider").fill(str(k))
            _check(_shown(page), expected, text)
    assert page.errors == []


def test_the_viewer_runs_inside_a_notebook_frame(page, games, tmp_path):
    h, e = games[1]
    doc = tmp_path / "notebook.html"
    doc.write_text(f"<!DOCTYPE html><html><body>{inline_html(h, e)}</body></html>")
    page.goto(doc.as_uri())
    frame = page.frames[1]
    frame.wait_for_selector("section.seat")
    frame.click("#next")
    assert frame.evaluate("document.body.dataset.step") == "1"
    assert page.errors == []


def test_replay_prints_the_narrative_only_without_an_output_file(tmp_path, capsys):
    """#57: with --html or --png only the result and "wrote ..." are printed (the story of a
    long game is a thousand lines); --narrative prints it as well; without a file it is
    the command's output."""
    log = _write_log(tmp_path / "g.jsonl", header(**RULES_A), LOG_A)
    code, story, err = run_main(["replay", log], capsys)
    assert code == 0, err
    told = [line for line in story.splitlines() if line.startswith("Setup: ")]
    assert told and "Final standings:" in story
    page, png = tmp_path / "g.html", tmp_path / "g.png"
    for extra in (["--html", page], ["--png", png], ["--html", page, "--png", png]):
        code, out, err = run_main(["replay", log, *extra], capsys)
        assert code == 0, err
        assert out.splitlines() == [f"red (seat 0) wins on turn {LOG_A[-1]['turn']}.",
                                    f"checked: {len(LOG_A)} events follow the rules",
                                    *(f"wrote {p}" for p in extra[1::2][::-1])]
        code, out, err = run_main(["replay", log, *extra, "--narrative"], capsys)
        assert code == 0, err
        assert out.startswith(story)


# --- names from a log are text, never markup or terminal control -----------------------------

HOSTILE = ["<img src=x onerror=alert(1)>", "\"><svg onload=alert(2)>", "'><b id=bold>b</b>",
           "a & b </small>"]


@pytest.mark.parametrize("name, needles", [
    ("\x1b]0;TITLE\x07\x1b[2J", ["header.strategies[0]: '\\x1b]0;TITLE\\x07\\x1b[2J' holds the "
                                 "unprintable character '\\x1b'"]),
    ("tab\there", ["header.strategies[0]: 'tab\\there' holds the unprintable character '\\t'"]),
    ("rtl\u202eevil", ["holds the unprintable character '\\u202e'"]),
    ("", ["header.strategies[0]: 0 characters; allowed: a name of 1..200 printable characters"]),
    ("x" * 201, ["header.strategies[0]: 201 characters; allowed: a name of 1..200"]),
    (7, ["header.strategies[0]: expected a string, got an integer; allowed: a name of 1..200"]),
])
@pytest.mark.parametrize("check", [[], ["--no-check"]])
def test_replay_refuses_a_name_a_terminal_would_obey_in_one_line(name, needles, check, tmp_path,
                                                                  capsys):
    """A name holding terminal escapes (set the title, clear the screen) or that is no
    name is refused by the header check (also with --no-check), the one line naming it
    escaped: nothing of the log reaches the terminal raw."""
    h = header(**RULES_A)
    log = _write_log(tmp_path / "g.jsonl", {**h, "strategies": [name, *h["strategies"][1:]]},
                     LOG_A)
    code, out, err = run_main(["replay", log, *check, "--html", tmp_path / "g.html"], capsys)
    assert code == 2 and out == "" and not (tmp_path / "g.html").exists()
    one_line(err, f"{log}:1: ", *needles)
    assert "\x1b" not in err and "\x07" not in err


def test_the_checker_takes_any_printable_name_of_up_to_200_characters():
    h = header(**RULES_A)
    names = ["x" * 200, "naïve 名前 ☃", *HOSTILE[:2]]
    assert replay({**h, "strategies": names}, LOG_A).strategies == names


def _dialogs(pg) -> list:
    seen = []
    pg.on("dialog", lambda d: (seen.append(d.message), d.dismiss()))
    return seen


def test_hostile_names_render_as_text_in_the_browser(page, tmp_path):
    """A log's names through every place the page shows them (seat panels in both card
    views, the title), and the notebook frame: text, never markup; no script runs."""
    dialogs = _dialogs(page)
    h = header(**RULES_A)
    h = {**h, "strategies": HOSTILE}
    path = write_viewer(tmp_path / "hostile.html", h, LOG_A)
    page.goto(path.as_uri())
    for show_all in (False, True):
        page.set_checked("#show-all", show_all)
        got = page.evaluate("""() => ({
            names: [...document.querySelectorAll('section.seat h3 small')].map(s => s.textContent),
            markup: document.querySelectorAll('#seats img, #seats svg, #bold, body img').length,
            title: document.getElementById('title').textContent})""")
        assert got["names"] == [f"seat {p} · {n}" for p, n in enumerate(HOSTILE)]
        assert got["markup"] == 0
        assert all(n in got["title"] for n in HOSTILE)
    page.click("#last")
    doc = tmp_path / "notebook.html"
    doc.write_text(f"<!DOCTYPE html><html><body>{inline_html(h, LOG_A)}</body></html>")
    page.goto(doc.as_uri())
    frame = page.frames[1]
    frame.wait_for_selector("section.seat")
    assert frame.evaluate("document.querySelectorAll('#seats img, #bold').length") == 0
    assert dialogs == [] and page.errors == []


def test_a_hostile_strategy_defined_for_the_engine_renders_as_text(page, tmp_path, capsys):
    """The engine's own route in: a strategy defined in a config under a hostile name,
    played, written by ``catansim play --html``."""
    dialogs = _dialogs(page)
    name = HOSTILE[0]
    defs = tmp_path / "defs.toml"
    defs.write_text(f'[strategies."{name}"]\nbase = "default"\n')
    out = tmp_path / "defs.html"
    code, _, err = run_main(["play", "--config", defs, "--strategies",
                             f"{name},default,default,default", "--seed", 3, "--html", out],
                            capsys)
    assert code == 0, err
    page.goto(out.as_uri() + "#step=40")
    small = page.locator("section.seat h3 small").first.text_content()
    assert small == f"seat 0 · {name}"
    assert page.evaluate("document.querySelectorAll('body img').length") == 0
    assert dialogs == [] and page.errors == []


# --- what the page looks like ---------------------------------------------------------------


def test_the_turn_box_names_the_turn_once(page, typical):
    """The box of the turn's lines starts with the turn's heading; the roll that follows
    shows its dice, not the heading again (#57)."""
    path, h, e = typical
    rolls = [k for k, ev in enumerate(e) if ev["e"] == "roll" and e[k - 1]["e"] == "turn_start"
             ][:30:5]
    text = game_view(h, e)["text"]
    page.goto(path.as_uri())
    for k in rolls:
        page.locator("#slider").fill(str(k))
        lines = page.locator("#narrative li").all_text_contents()
        head = text[k - 1]  # the turn_start's line
        assert head.startswith("Turn ")
        assert lines[0] == head
        assert lines[1] == f"rolls {e[k]['dice'][0]}+{e[k]['dice'][1]} = {sum(e[k]['dice'])}"
        assert sum(line.startswith("Turn ") for line in lines) == 1
        assert page.locator("#current-line").text_content() == text[k]  # the caption: whole


def test_phrases_of_a_seat_panel_never_wrap_inside(page, typical):
    """"knights played N" and "longest route N" each stay on one line, in both card views,
    at the width the page is read at and a narrow one (#57)."""
    path, h, e = typical
    page.goto(path.as_uri() + f"#step={len(e) - 1}")
    lines_of = """(phrase) => [...document.querySelectorAll('section.seat')].map(sec => {
        const walker = document.createTreeWalker(sec, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        let node;
        while ((node = walker.nextNode())) {
            const at = node.textContent.indexOf(phrase);
            if (at < 0) continue;
            const m = /^[a-z ]+ \\d+/.exec(node.textContent.slice(at));
            range.setStart(node, at);
            range.setEnd(node, at + m[0].length);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        }
        return -1; })"""
    for width in (1400, 1000):
        page.set_viewport_size({"width": width, "height": 1000})
        for show_all in (False, True):
            page.set_checked("#show-all", show_all)
            for phrase in ("knights played", "longest route"):
                assert page.evaluate(lines_of, phrase) == [1, 1, 1, 1], (width, phrase)


def _contrast(a, b) -> float:
    """WCAG contrast ratio of two sRGB colours (0-255 triples)."""
    def lum(c):
        c = [v / 255 for v in c[:3]]
        c = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_a_white_road_stands_out_from_what_it_lies_on(page, typical, tmp_path):
    """On the screenshot, just outside each white road on both sides, the colour contrasts
    with the road's white by at least 3:1 (WCAG's ratio for graphics): the road is seen on
    the cream border and on light hexes alike (#57)."""
    from PIL import Image

    path, h, e = typical
    white = 2  # the white seat of four
    page.goto(path.as_uri() + f"#step={len(e) - 1}")
    points = page.evaluate("""(seat) => {
        const board = document.getElementById('board');
        const ctm = board.getScreenCTM();
        const colour = JSON.parse(document.getElementById('game-data').textContent)
            .palette.seats[seat];
        const at = (x, y) => { const p = board.createSVGPoint(); p.x = x; p.y = y;
            const q = p.matrixTransform(ctm); return [q.x, q.y]; };
        return [...board.querySelectorAll('line.road')].filter(
            l => l.getAttribute('stroke') === colour).map(l => {
            const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map(a => +l.getAttribute(a));
            const len = Math.hypot(x2 - x1, y2 - y1), nx = -(y2 - y1) / len, ny = (x2 - x1) / len;
            const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, d = 0.11;
            return {centre: at(mx, my), sides: [at(mx + d * nx, my + d * ny),
                                                at(mx - d * nx, my - d * ny)]};
        }); }""", white)
    assert len(points) >= 2
    shot = tmp_path / "board.png"
    page.screenshot(path=shot)
    img = Image.open(shot).convert("RGB")
    for p in points:
        road = img.getpixel(tuple(round(v) for v in p["centre"]))
        assert _contrast(road, (250, 250, 250)) < 1.1  # the road's own white
        for side in p["sides"]:
            assert _contrast(img.getpixel(tuple(round(v) for v in side)), road) >= 3, p
