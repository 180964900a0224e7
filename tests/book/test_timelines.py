"""The book's timeline drawing: every bar comes from the run's own log."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from spotmath.book.timelines import draw_timeline  # noqa: E402
from spotmath.model.simulate import timeline  # noqa: E402
from spotmath.palette import KIND_COLOURS  # noqa: E402


def bars(figure):
    """(x, width, y, colour, hatched) of every bar drawn (a collection of one colour
    paints all its bars with it)."""
    found = []
    for collection in figure.axes[0].collections:
        paths, colours = collection.get_paths(), collection.get_facecolors()
        colours = list(colours) * len(paths) if len(colours) == 1 else colours
        for path, colour in zip(paths, colours, strict=True):
            (x0, y0), (x1, y1) = path.get_extents().get_points()
            found.append((round(x0, 9), round(x1 - x0, 9), round(y0, 9),
                          matplotlib.colors.to_hex(colour), bool(collection.get_hatch())))
    return found


def test_the_drawing_is_the_log_bar_for_bar():
    run = timeline(preemption_rate=0.25, interval=1.0, checkpoint_cost=0.1,
                   restart_time=0.2, work=2.0, preemption_times=[1.5])
    drawn = bars(draw_timeline(run))
    expected = [(round(s.start, 9), round(s.end - s.start, 9), -0.3,
                 KIND_COLOURS[s.kind].lower(), s.kind == "lost") for s in run.segments]
    assert sorted(drawn) == sorted(expected)
    figure = draw_timeline(run)
    marks = [t.get_text() for t in figure.axes[0].texts]
    assert marks == ["T", "C", "lost", "R"][:len(marks)] and "T" in marks


def test_a_gang_draws_a_row_per_node_and_marks_the_preempted_one():
    run = timeline(preemption_rate=0.5, interval=0.5, checkpoint_cost=0.05,
                   restart_time=0.1, work=3.0, gang_size=3, seed=4)
    figure = draw_timeline(run, unit="min")
    drawn = bars(figure)
    tiles = [s for s in run.segments if s.kind != "persist"]
    assert len(drawn) == 3 * len(tiles)
    assert {round(bar[2], 6) for bar in drawn} == {-0.3, 0.7, 1.7}
    assert drawn[0][1] == pytest.approx(60 * (tiles[0].end - tiles[0].start), rel=1e-6)
    lines = [line for line in figure.axes[0].lines if line.get_marker() == "v"]
    assert len(lines) == sum(3 if node < 0 else 1 for _, node in run.preemptions)


def test_deadline_policies_draw_a_row_each_from_their_logs():
    import numpy as np

    from spotmath.book.timelines import policy_timeline
    from spotmath.traces.deadlines import run_policy

    spot = np.array([True, True, False] + [True] * 7)
    runs = {name: run_policy(name, spot, 1.0, 3.0, 9.0, 0.5, 0.6)
            for name in ("greedy", "on-demand")}
    pool = policy_timeline(runs, 1.0)
    assert pool.names == ("greedy", "on-demand") and pool.length == 5.0
    assert pool.preemptions == ((2.0,), ())
    figure = draw_timeline(pool, rows=2)
    drawn = bars(figure)
    expected = [(round(s.start, 9), round(s.end - s.start, 9), y - 0.3,
                 KIND_COLOURS[s.kind].lower(), False)
                for y, row in zip((1, 0), pool.rows) for s in row]
    assert sorted(drawn) == sorted(expected)
    labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert labels == ["on spot", "on on-demand", "changeover", "idle", "preemption"]


def test_every_chapter_timeline_is_drawn_from_a_run():
    """Each fig-timeline-* in the book is glued by a cell that draws it with the book's
    one drawing function from a simulated run, never from hand-placed bars."""
    import re

    import nbformat

    from spotmath.book import ROOT

    found = {}
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            for name in re.findall(r"keep\((fig_timeline_\w+)=", cell.source):
                found[name] = cell.source
    assert set(found) >= {"fig_timeline_waste", "fig_timeline_checkpoint_cost",
                          "fig_timeline_exact_model", "fig_timeline_gangs",
                          "fig_timeline_notice", "fig_timeline_real_preemptions",
                          "fig_timeline_two_level", "fig_timeline_deadlines",
                          "fig_timeline_cluster", "fig_timeline_killed_run"}
    for name, source in found.items():
        assert "draw_runs(" in source or "draw_timeline(" in source, name
        assert "broken_barh" not in source and "axvspan" not in source, name
