"""`spotmath plan` and `spotmath derive` as a user runs them (a real subprocess)."""

import subprocess
import sys

import pytest

import spotmath as sm

KEYS = {"young_interval_h", "daly_interval_h", "exact_interval_h", "waste_first_order",
        "waste_exact", "effective_discount", "break_even_interval_h", "break_even",
        "max_gang_size",
        "never_on_spot_gang_size", "verdict"}


def run_process(*args):
    """Run the installed module as a separate process, as a user does."""
    return subprocess.run([sys.executable, "-m", "spotmath", *args],
                          capture_output=True, text=True, timeout=120)


def test_plan_json_at_the_defaults(plan_json):
    out = plan_json("--mtbf", "4h", "--restart", "10min", "--checkpoint", "1min",
                    "--discount", "0.6")
    assert KEYS <= set(out)
    assert out["young_interval_h"] * 60 == pytest.approx(21.909, abs=1e-3)
    assert out["exact_interval_h"] * 60 == pytest.approx(21.25, abs=0.005)
    rate, restart, cost, discount = 0.25, 1 / 6, 1 / 60, 0.6
    exact = sm.exact_interval(rate, cost)
    assert out["waste_exact"] == pytest.approx(sm.waste_fraction(rate, exact, cost, restart))
    assert out["waste_first_order"] == pytest.approx(
        cost / exact + rate * (exact / 2 + restart))  # typed first-order formula
    assert out["effective_discount"] == pytest.approx(
        1 - (1 - discount) / (1 - out["waste_exact"]))
    assert out["break_even_interval_h"] == pytest.approx(
        sm.break_even_interval(rate, cost, restart, discount))
    assert out["max_gang_size"] == 13 and out["never_on_spot_gang_size"] == 22
    assert out["verdict"] == "spot pays"


def test_plan_defaults_are_the_books(plan_json):
    assert plan_json() == plan_json("--mtbf", "4h", "--restart", "10min", "--checkpoint",
                                    "1min", "--discount", "60%")


def test_plan_with_rate_equals_plan_with_mtbf(plan_json):
    assert plan_json("--rate", "6/d") == plan_json("--mtbf", "4h")


def test_plan_for_a_gang_uses_n_lambda(plan_json):
    gang = plan_json("--gang-size", "8")
    single = plan_json("--mtbf", "30min")  # 8 × 0.25/h = 2/h
    for key in ("young_interval_h", "exact_interval_h", "waste_exact", "break_even_interval_h"):
        assert gang[key] == pytest.approx(single[key], rel=1e-12)
    assert gang["gang_rate"] == 2.0 and gang["gang_size"] == 8
    # the gang limits are about the per-node rate, so they do not change with --gang-size
    assert gang["max_gang_size"] == plan_json()["max_gang_size"]


def test_plan_first_order_model(plan_json):
    out = plan_json("--model", "first-order")
    assert out["recommended_interval_h"] == out["young_interval_h"]
    assert out["max_gang_size"] == 8 and out["never_on_spot_gang_size"] == 15


def test_plan_says_use_on_demand_when_spot_cannot_pay(plan_json):
    out = plan_json("--gang-size", "30")
    assert out["verdict"] == "use on-demand"
    assert out["break_even_interval_h"] is None and out["break_even"] == "never"
    assert out["effective_discount"] < 0


def test_plan_first_order_breakdown_is_reported_not_hidden(plan_json):
    out = plan_json("--model", "first-order", "--mtbf", "10min", "--restart", "30min")
    assert out["waste_first_order"] >= 1
    assert out["effective_discount"] is None and out["verdict"] == "use on-demand"


def test_the_usage_words_the_page_shares_are_argparses(cli):
    """spotmath.report.USAGE (what the page says) is what argparse says."""
    from spotmath.model.plan import CHOICES
    from spotmath.report import USAGE

    both = cli("plan", "--rate", "6/d", "--mtbf", "2h")
    assert both.returncode == 2
    assert USAGE["exclusive"].format(option="mtbf", other="rate") in both.stderr
    bad = cli("plan", "--model", "bogus")
    choices = ", ".join(map(repr, CHOICES["model"]))
    assert USAGE["choice"].format(option="model", value=repr("bogus"),
                                  choices=choices) in bad.stderr


def test_plan_at_a_waste_of_100_percent_says_why_there_is_no_price(cli, plan_json):
    """Exact model, preemptions every 6 min, a day-long restart: no hour is useful (the
    exact waste rounds to 1), so spot has no effective discount, and the plan says that
    rather than blaming the first-order formula."""
    out = plan_json("--mtbf", "6min", "--restart", "1d")
    assert out["waste_exact"] == 1.0 and out["effective_discount"] is None
    assert out["verdict"] == "use on-demand"
    text = cli("plan", "--mtbf", "6min", "--restart", "1d").stdout
    assert "n/a: the waste reaches 100% here, so no hour is" in text
    assert "first-order" not in text.split("effective spot discount")[1].split("\n")[0]


def test_a_reader_that_stops_reading_ends_the_command_quietly(checkout):
    """`spotmath derive --list | head -1`: the first line, no BrokenPipeError; a reader
    that reads nothing at all (`| true`) gets the status of SIGPIPE, 141, and silence."""
    for command in ("derive --list", "fit book/data/traces/p3-trace.csv"):
        for reader, statuses in (("head -1", {"0", "141"}), ("true", {"141"})):
            result = subprocess.run(
                f"{sys.executable} -m spotmath {command} | {reader}; "
                'echo "status ${PIPESTATUS[0]}"', shell=True, executable="/bin/bash",
                capture_output=True, text=True, cwd=checkout, timeout=300)
            assert result.stderr == "", result.stderr
            lines = result.stdout.splitlines()
            assert lines[-1].split()[1] in statuses, (command, reader, result.stdout)
            assert len(lines) == (2 if reader == "head -1" else 1)


def test_plan_table_is_readable(cli):
    result = cli("plan")
    assert result.returncode == 0
    text = result.stdout
    for fragment in ("Young 21.9 min", "exact 21.2 min", "break-even interval", "verdict",
                     "spot pays", "22 nodes"):
        assert fragment in text
    assert max(len(line) for line in text.splitlines()) <= 80  # no sideways scrolling


@pytest.mark.parametrize("args, names", [
    (["--mtbf=-4h"], "--mtbf"),
    (["--mtbf", "0"], "--mtbf"),
    (["--rate", "-0.25/h"], "--rate"),
    (["--discount", "1.5"], "--discount"),
    (["--discount", "100%"], "--discount"),
    (["--restart", "ten"], "--restart"),
    (["--restart", "10m"], "--restart"),
    (["--checkpoint", "0"], "--checkpoint"),
    (["--checkpoint", "nan"], "--checkpoint"),
    (["--gang-size", "0"], "--gang-size"),
    (["--gang-size", "2.5"], "--gang-size"),
    (["--model", "magic"], "--model"),
    (["--frobnicate", "1"], "--frobnicate"),
    (["--rate", "1/h", "--mtbf", "1h"], "--mtbf"),
    # magnitudes: at most about 114 years (1e6 hours), rates from 1e-6 to 1e6 per hour
    (["--checkpoint", "1e250h"], "--checkpoint: must be at most 1e+06 hours"),
    (["--restart", "2e6h"], "--restart: must be at most 1e+06 hours"),
    (["--mtbf", "1e9h"], "--mtbf: must be at most 1e+06 hours"),
    (["--rate", "1e-9/h"], "--rate: must be from 1e-06 to 1e+06 per hour"),
    (["--persist", "1e7d"], "--persist: must be at most 1e+06 hours"),
])
def test_bad_input_is_one_line_exit_2(args, names, cli):
    result = cli("plan", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert names in lines[0] and "Traceback" not in result.stderr


@pytest.mark.derives
def test_derive_lists_and_prints_latex(cli):
    listing = cli("derive", "--list")
    assert listing.returncode == 0
    names = [line.split()[0] for line in listing.stdout.splitlines()]
    for name in ("waste", "young", "daly", "exact-optimum", "exact-waste", "break-even",
                 "gang-rate", "never-on-spot"):
        assert name in names
    young = cli("derive", "young")
    assert young.stdout.strip() == r"T^{*} = \frac{\sqrt{2} \sqrt{C}}{\sqrt{\lambda}}"
    assert "LambertW" in cli("derive", "exact-optimum", "--sympy").stdout
    bad = cli("derive", "yung")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "derivation" in bad.stderr


def test_real_process_prints_table_and_fails_cleanly():
    good = run_process("plan", "--mtbf", "4h")
    assert good.returncode == 0 and "verdict" in good.stdout and good.stderr == ""
    bad = run_process("plan", "--discount", "1.5")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == ("spotmath plan: error: --discount: must be a fraction strictly "
                          "between 0 and 1 (0.6 or '60%'), got '1.5'\n")


@pytest.mark.parametrize("arguments, message", [
    (["plan", "--mtbf", "1e-320"], "--mtbf: must be a duration > 0 (hours, or a string like "
                                   "'10min'), got '1e-320' (beyond what spotmath computes "
                                   "with: 1e-150 to 1e+100, or 0 where allowed)"),
    (["plan", "--gang-size", "0"], "--gang-size: must be a whole number of nodes >= 1, got '0'"),
    (["plan", "--gang-size", "-0"], "--gang-size: must be a whole number of nodes >= 1, got '-0'"),
    (["replay", "{p3}", "--gang-size", "16", "--level1", "5s", "--level1-restart", "2min",
      "--level1-group", "16"], "--level1-group: no event on p3-trace.csv takes a fast copy, "
                               "so there is no optimum: give --interval and --level2-every"),
])
def test_a_message_names_the_option_and_the_value_as_typed(cli, traces_folder, arguments,
                                                          message):
    """They said 'preemption_rate: ... got inf', 'got 0.0', 'got -0.0' and 'the interval
    and level2_every': the names and values the library has, not those the user typed."""
    arguments = [str(traces_folder / "p3-trace.csv") if a == "{p3}" else a
                 for a in arguments]
    done = cli(*arguments)
    assert done.returncode == 2
    assert done.stderr == f"spotmath {arguments[0]}: error: {message}\n"


def test_every_command_names_the_gang_size_alike_and_takes_its_old_name(cli):
    """``--gang-size`` in plan, fit, replay, deadline and cluster; ``--nodes``, its name
    before, is taken the same and not shown in --help."""
    for command in ("plan", "fit", "replay", "deadline", "cluster"):
        shown = cli(command, "--help").stdout
        assert "--gang-size" in shown and "--nodes" not in shown, command
    cluster = ("cluster", "--gpus", "64", "--hp-rate", "2/h", "--hp-hold", "1h", "--json")
    assert cli(*cluster, "--nodes", "16").stdout == cli(*cluster, "--gang-size", "16").stdout
    deadline = ("deadline", "--mtbf", "4h", "--outage", "1h", "--compute", "3h",
                "--deadline", "5h", "--draws", "5", "--json")
    assert cli(*deadline, "--nodes", "2").stdout == cli(*deadline, "--gang-size", "2").stdout
