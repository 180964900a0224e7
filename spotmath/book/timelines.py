"""The book's one timeline drawing: a job's run, segment by segment, from its event log.

Every chapter draws a run the same way (:func:`draw_timeline`): time along the x axis in
the chapter's unit, one row per node of the gang, the same colours and legend everywhere
(the Okabe-Ito palette, readable with any colour vision), lost work hatched, and the
first interval, write, restart and loss labelled T, C, R and "lost".  The picture is the
run's own log (:func:`spotmath.model.simulate.timeline`), never hand-placed bars.
"""

from __future__ import annotations

from typing import Any

from ..model.simulate import PoolTimeline, Segment, Timeline
from ..palette import KIND_COLOURS, LOST_EDGE

__all__ = ["KIND_LABELS", "UNITS", "draw_timeline", "draw_runs", "policy_timeline",
           "killed_run_timeline"]

#: Legend labels by segment kind.
KIND_LABELS = {"compute": "compute", "checkpoint": "checkpoint write", "lost": "lost work",
               "restart": "restart", "notice-write": "on-notice write",
               "persist": "write becoming durable", "fast-checkpoint": "fast write",
               "fast-restart": "restart from a fast copy", "spot": "on spot",
               "on-demand": "on on-demand", "changeover": "changeover",
               "idle": "idle"}
#: Hours per unit of the x axis.
UNITS = {"h": 1.0, "min": 1 / 60}
#: Marks drawn in the first segment of each kind.
_MARKS = {"compute": "T", "checkpoint": "C", "restart": "R", "lost": "lost",
          "fast-checkpoint": "C₁", "fast-restart": "R₁", "changeover": "d"}
_ALWAYS = ("compute", "checkpoint", "lost", "restart")


def draw_timeline(run: Timeline | PoolTimeline, *, unit: str = "h", rows: int = 8,
                  ax: Any = None, until: float | None = None) -> Any:
    """Draw one run: a row per node, its segments, its preemptions.

    Parameters
    ----------
    run : spotmath.model.simulate.Timeline or PoolTimeline
        The run's event log: a gang's (every row the same, a mark on the node preempted)
        or a pool's (each instance its own row, e.g. a replayed window of a trace).
    unit : {'h', 'min'}, optional
        The x axis's unit (default hours).
    rows : int, optional
        At most this many node rows; a larger gang shows its first ``rows`` nodes and
        says how many it has (default 8).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure sized to the rows).
    until : float, optional
        Draw up to this time, hours (default: the whole run).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Raises
    ------
    InputError
        An unknown unit.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    from ..inputs import check_choice

    scale = UNITS[check_choice("unit", unit, tuple(UNITS))]
    if isinstance(run, PoolTimeline):  # each instance its own row
        lanes, total, length = list(run.rows), len(run.rows), run.length
        hits = [(time, row) for row, times in enumerate(run.preemptions) for time in times]
        names = list(run.names)
    else:  # a gang: every node the same, preempted one at a time or all at once
        lanes, total, length = None, run.gang_size, run.wall_time
        hits = list(run.preemptions)
        names = [f"node {n + 1}" for n in range(total)] if total > 1 else ["job"]
    shown = max(1, min(total, rows))
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 1.6 + 0.45 * shown))
    end = length if until is None else min(until, length)
    marked: set[str] = set()
    placed: list[float] = []
    bars: dict[tuple[int, str], list[tuple[float, float]]] = {}  # (row, kind): bars
    for row in range(shown):
        y = shown - 1 - row
        for segment in (run.segments if lanes is None else lanes[row]):
            if segment.start >= end:
                break
            stop = min(segment.end, end)
            start, width = segment.start / scale, (stop - segment.start) / scale
            bars.setdefault((y, segment.kind), []).append((start, width))
            if segment.kind == "persist":
                continue
            # the first segment of each kind wide enough to carry its mark, under the
            # bottom row
            middle = start + width / 2
            if y == 0 and segment.kind in _MARKS and segment.kind not in marked \
                    and stop == segment.end and width >= 0.025 * end / scale \
                    and all(abs(middle - x) >= 0.05 * end / scale for x in placed):
                marked.add(segment.kind)
                placed.append(middle)
                ax.annotate(_MARKS[segment.kind], (middle, -0.34), ha="center", va="top",
                            fontsize=9)
    # one collection a row and a kind (a collection a segment costs time quadratic in
    # the segments: each one added rescales the axes over all the others)
    for (y, kind), spans in bars.items():
        if kind == "persist":
            ax.broken_barh(spans, (y - 0.42, 0.1), facecolors=KIND_COLOURS["persist"])
            continue
        lost = kind == "lost"
        ax.broken_barh(spans, (y - 0.3, 0.6), facecolors=KIND_COLOURS[kind],
                       edgecolors=LOST_EDGE if lost else "white",
                       hatch="////" if lost else None, linewidth=0.6)
    for time, node in hits:
        if time > end:
            continue
        hit = range(shown) if node < 0 else ([node] if node < shown else [])
        for row in hit:
            ax.plot(time / scale, shown - 1 - row + 0.55, marker="v", color="k",
                    markersize=6, linestyle="none")
    drawn = run.segments if lanes is None else [s for lane in lanes for s in lane]
    # a checkpointing run's legend always explains its four kinds; a deadline run's has
    # only its own
    always = _ALWAYS if any(s.kind == "compute" for s in drawn) else ()
    kinds = [k for k in KIND_COLOURS if k in always or any(s.kind == k for s in drawn)]
    handles = [Patch(facecolor=KIND_COLOURS[k], edgecolor=LOST_EDGE if k == "lost" else "none",
                     hatch="////" if k == "lost" else None, label=KIND_LABELS[k])
               for k in kinds]
    handles.append(plt.Line2D([], [], marker="v", color="k", linestyle="none",
                              label="preemption"))
    ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0),
              ncol=len(handles) if len(handles) <= 5 else 4, fontsize=8.5,
              borderaxespad=0.2)
    names = names[:shown]
    if total > shown:
        names[-1] += f" (of {total})"
    ax.set_yticks(range(shown), names[::-1])
    ax.set_ylim(-0.75, shown - 0.2)
    ax.set_xlim(0, end / scale)
    ax.set_xlabel(f"time from the start, {'hours' if unit == 'h' else 'minutes'}")
    ax.grid(axis="y", visible=False)
    return ax.figure


def draw_runs(panels: dict[str, dict[str, Any]], *, unit: str = "h", rows: int = 8) -> Any:
    """Simulate and draw one run per panel, stacked, on a shared time axis.

    Parameters
    ----------
    panels : dict
        ``{title: options}``: each ``options`` is given to
        :func:`spotmath.model.simulate.timeline` (a title of ``""`` draws none).
    unit : {'h', 'min'}, optional
    rows : int, optional
        At most this many node rows per panel (default 8).

    Returns
    -------
    matplotlib.figure.Figure
        A run the simulator refuses (far too many preemptions to simulate one job) is a
        panel that says so, with the simulator's reason.
    """
    import matplotlib.pyplot as plt

    from ..inputs import InputError
    from ..model.simulate import timeline

    runs: dict[str, Any] = {}
    for title, options in panels.items():
        try:
            runs[title] = timeline(**options)
        except InputError as error:
            runs[title] = error
    heights = [1.0 if isinstance(run, InputError) else 1.3 + 0.45 * min(run.gang_size, rows)
               for run in runs.values()]
    figure, axes = plt.subplots(len(runs), 1, figsize=(7.0, sum(heights) + 0.3),
                                height_ratios=heights, squeeze=False)
    longest = max((run.wall_time for run in runs.values() if isinstance(run, Timeline)),
                  default=None)
    for ax, (title, run) in zip(axes[:, 0], runs.items()):
        if isinstance(run, InputError):
            ax.axis("off")
            ax.text(0.5, 0.5, f"{title}: not simulated: {run.detail}".lstrip(": "),
                    ha="center", va="center", wrap=True, fontsize=9)
            continue
        draw_timeline(run, unit=unit, rows=rows, ax=ax)
        ax.set_xlim(0, longest / UNITS[unit])
        if title:
            ax.set_title(title, loc="left", fontsize=9.5)
    legends = [ax.get_legend() for ax in axes[:, 0] if ax.get_legend() is not None]
    if legends:  # one legend for the figure, below the panels
        handles = max((legend.legend_handles for legend in legends), key=len)
        for legend in legends:
            legend.remove()
        figure.legend(handles=handles, loc="outside lower center", ncol=5, fontsize=8.5)
    for ax in axes[:-1, 0]:
        ax.set_xlabel("")
    return figure


def policy_timeline(runs: dict[str, Any], tick: float) -> PoolTimeline:
    """Deadline policies' runs on one window, one row each, from their own logs.

    Parameters
    ----------
    runs : dict
        ``{name: spotmath.traces.deadlines.Run}`` (a ``None`` run is left out).
    tick : float
        The availability's tick, hours.

    Returns
    -------
    spotmath.model.simulate.PoolTimeline
        Rows of idle, changeover, spot and on-demand segments, and in checkpoint mode
        writes and lost work (:meth:`~spotmath.traces.deadlines.Run.segments`), each
        row's preemptions at the ticks spot was taken, as long as the longest run.
    """
    kept = {name: run for name, run in runs.items() if run is not None}
    return PoolTimeline(
        names=tuple(kept), rows=tuple(run.segments(tick) for run in kept.values()),
        preemptions=tuple(tuple(i * tick for i in run.preempted_ticks)
                          for run in kept.values()),
        length=max(run.finish_h for run in kept.values()))


def killed_run_timeline(run: dict, interval: float, write: float, restart: float
                        ) -> PoolTimeline:
    """A really killed training run from its own log, above its replay on the same lives.

    Parameters
    ----------
    run : dict
        The ``killed_run_*`` record of ``book/data/gpu/checkpoint_costs_h200.json``:
        ``lives`` (launch and kill times), ``restart_s`` (launch to the first step, for the
        lives that got that far, in order), ``commits`` (each with its life, the time it
        was committed and its write time), ``horizon_s``.
    interval, write, restart : float
        The replay's T, C and R, seconds.

    Returns
    -------
    spotmath.model.simulate.PoolTimeline
        Two rows in hours: the run (a restart to its first step, compute, each write
        ending at its commit, the work after the last commit lost at the kill) and the
        replay (the restart R, then cycles of T and C, the tail lost), each with its kills.
    """
    hour = 3600.0
    lives, commits = run["lives"], run["commits"]
    restarts = iter(run["restart_s"])
    real, replayed = [], []
    for number, life in enumerate(lives):
        start, end = life["launched_s"], min(life["killed_s"], run["horizon_s"])
        last = number == len(lives) - 1  # still running at the horizon: nothing lost
        mine = [c for c in commits if c["life"] == number]
        ready = start + next(restarts) if mine or (last and end - start > restart) \
            else end
        real.append((start, min(ready, end), "restart"))
        at = min(ready, end)
        for commit in mine:
            real += [(at, commit["at_s"] - commit["write_s"], "compute"),
                     (commit["at_s"] - commit["write_s"], commit["at_s"], "checkpoint")]
            at = commit["at_s"]
        if at < end:
            real.append((at, end, "compute" if last else "lost"))
        at = min(start + restart, end)
        replayed.append((start, at, "restart"))
        while at + interval + write <= end:
            replayed += [(at, at + interval, "compute"),
                         (at + interval, at + interval + write, "checkpoint")]
            at += interval + write
        if at < end:
            replayed.append((at, end, "compute" if last else "lost"))

    def row(segments):
        return tuple(Segment(a / hour, b / hour, kind) for a, b, kind in segments if b > a)

    kills = tuple(life["killed_s"] / hour for life in lives[:-1])
    return PoolTimeline(names=("the run", "its replay"), rows=(row(real), row(replayed)),
                        preemptions=(kills, kills), length=run["horizon_s"] / hour)
