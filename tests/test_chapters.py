"""The chapters as a reader reruns them: papermill with other parameters, bad parameters,
stored outputs that nbval can trust, and glued numbers checked against spotmath computed
here, independently of the notebook."""

import json
import math
import re
import subprocess
import sys

import nbformat
import papermill
import pytest
from scipy.stats import norm

import spotmath as sm
from spotmath.chapters import ROOT, chapter_paths, declared_parameters, glued, run_chapter
from spotmath.inputs import BOOK_PARAMETERS, InputError

CHAPTERS = chapter_paths()
NAMES = [path.stem for path in CHAPTERS]

# Two non-default parameter sets, as the issue asks: one extreme, one gentle.
PARAMETER_SETS = {
    "extreme": {"mtbf_hours": 0.5, "restart_minutes": 5, "checkpoint_minutes": 2,
                "spot_discount": 0.7, "cadences_minutes": [5, 20, 90],
                "gang_sizes": [1, 2, 3, 5], "restart_preemptible": False,
                "seed": 7, "jobs": 1500, "weibull_shapes": [0.7, 1.0],
                "bulk_fractions": [0.0, 1.0], "notice_seconds": 30},
    "gentle": {"mtbf_hours": 24, "restart_minutes": 15, "checkpoint_minutes": 0.5,
               "spot_discount": 0.5, "cadences_minutes": [30, 120, 480, 1440],
               "gang_sizes": [1, 16, 128, 512], "seed": 11, "jobs": 1500,
               "weibull_shapes": [1.0, 3.0], "bulk_fractions": [0.25],
               "notice_seconds": 300},
}


def expected_values(parameters: dict) -> dict:
    """The headline numbers for ``parameters``, computed here with spotmath and typed formulas."""
    p = dict({name: default for name, (default, _) in BOOK_PARAMETERS.items()}, **parameters)
    rate = 1 / p["mtbf_hours"]
    restart, cost = p["restart_minutes"] / 60, p["checkpoint_minutes"] / 60
    discount, variant = p["spot_discount"], p["restart_preemptible"]
    cadences = [m / 60 for m in p["cadences_minutes"]]
    exact = sm.exact_interval(rate, cost)
    waste = sm.waste_fraction(rate, exact, cost, restart, restart_preemptible=variant)
    first_order_cadences = [rate * (t / 2 + restart) for t in cadences]  # λ(T/2 + R), typed
    return {
        "young_interval_min": math.sqrt(2 * cost / rate) * 60,  # √(2C/λ), typed
        "daly_interval_min": sm.daly_interval(rate, cost) * 60,
        "exact_interval_min": exact * 60,
        "waste_at_optimum": waste,
        "waste_first_order": cost / exact + rate * (exact / 2 + restart),
        "young_waste_first_order": math.sqrt(2 * rate * cost) + rate * restart,
        "effective_discount": 1 - (1 - discount) / (1 - waste),
        "break_even_interval_h": sm.break_even_interval(rate, cost, restart, discount,
                                                         restart_preemptible=variant),
        "break_even_interval_other_variant_h": sm.break_even_interval(
            rate, cost, restart, discount, restart_preemptible=not variant),
        "break_even_interval_first_order_h": sm.break_even_interval(
            rate, cost, restart, discount, model="first-order"),
        "break_even_interval_seed_h": max(2 * (discount / rate - restart), 0) or None,
        "max_gang_size": sm.max_gang_size(rate, cost, restart, discount,
                                          restart_preemptible=variant),
        "never_on_spot_gang_size": sm.never_on_spot_gang_size(rate, restart, discount,
                                                              restart_preemptible=variant),
        "max_gang_size_first_order": sm.max_gang_size(rate, cost, restart, discount,
                                                      model="first-order"),
        "never_on_spot_gang_size_first_order": math.ceil(discount / (rate * restart) - 1e-9),
        "lost_work_exact_min": [(1 / rate - t / math.expm1(rate * t)) * 60 for t in cadences],
        "waste_first_order_cadences": first_order_cadences,
        "waste_exact_cadences": [sm.waste_fraction(rate, t, 0, restart, restart_preemptible=True)
                                 for t in cadences],
        "relative_price_cadences": [(1 - discount) / (1 - w) if w < 1 else None
                                    for w in first_order_cadences],
        "verdict": "spot pays" if waste < discount else "use on-demand",
    }


def check_simulation(values: dict, parameters: dict) -> int:
    """The simulation chapter's findings, against the exact model computed here."""
    p = dict({name: default for name, (default, _) in BOOK_PARAMETERS.items()}, **parameters)
    points = values["poisson_points"]
    # Bonferroni: the chance that any of the points strays further is 0.1%.
    assert values["max_abs_z"] < norm.isf(0.001 / (2 * points))
    assert values["poisson_within_3se"] >= points - 3
    rate, cost = 1 / p["mtbf_hours"], p["checkpoint_minutes"] / 60
    restart, discount = p["restart_minutes"] / 60, p["spot_discount"]
    one_node_pays = sm.optimal_waste(rate, cost, restart) < discount
    for rho, largest in zip(p["bulk_fractions"], values["largest_paying_gang_by_bulk_fraction"]):
        if rho == 1 and one_node_pays:  # every reclaim takes the whole gang: rate λ for all
            assert largest == max(p["gang_sizes"])
    assert values["notice_saves"] == (cost <= p["notice_seconds"] / 3600)
    return 3


def assert_matches(values: dict, expected: dict, chapter: str) -> int:
    """Every glued headline number equals the independent value; returns how many compared."""
    compared = 0
    for name, value in values.items():
        if name not in expected:
            continue
        want = expected[name]
        if isinstance(want, list):
            assert len(value) == len(want), (chapter, name)
            for got, ref in zip(value, want):
                assert got == pytest.approx(ref, rel=1e-9) if ref is not None else got is None
        elif isinstance(want, float):
            assert value == pytest.approx(want, rel=1e-9), (chapter, name, value, want)
        else:
            assert value == want, (chapter, name, value, want)
        compared += 1
    return compared


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_stored_outputs_match_the_defaults(chapter):
    """The committed notebook's glued numbers are the defaults' (and nbval reruns them)."""
    values = glued(chapter)
    compared = assert_matches(values, expected_values({}), chapter.stem)
    if chapter.stem == "simulation":
        compared += check_simulation(values, {})
    assert compared >= 1


@pytest.mark.parametrize("label", sorted(PARAMETER_SETS))
@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_papermill_rerun_with_other_parameters(chapter, label, tmp_path):
    declared = declared_parameters(chapter)
    parameters = {k: v for k, v in PARAMETER_SETS[label].items() if k in declared}
    values = run_chapter(chapter, tmp_path / chapter.name, parameters)
    compared = assert_matches(values, expected_values(parameters), chapter.stem)
    if chapter.stem == "simulation":
        compared += check_simulation(values, parameters)
    assert compared >= 1
    output = nbformat.read(tmp_path / chapter.name, as_version=4)
    errors = [o for c in output.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors


@pytest.mark.parametrize("name, value, fragment", [
    ("mtbf_hours", -4.0, "mtbf_hours: must be a duration > 0"),
    ("spot_discount", 1.5, "spot_discount: must be a fraction strictly between 0 and 1"),
    ("restart_minutes", "ten minutes", "restart_minutes: not a duration: 'ten minutes'"),
    ("mtbf_hours", "__import__('os').getcwd()", "mtbf_hours: not a duration"),
])
def test_bad_parameter_stops_the_notebook_with_a_clear_message(name, value, fragment, tmp_path):
    """Executed as papermill would for a user: the cell after `parameters` raises InputError."""
    with pytest.raises(papermill.PapermillExecutionError) as info:
        papermill.execute_notebook(str(CHAPTERS[0]), str(tmp_path / "out.ipynb"),
                                   parameters={name: value}, kernel_name="python3",
                                   progress_bar=False, cwd=str(CHAPTERS[0].parent))
    assert info.value.ename == "InputError"
    assert info.value.evalue.startswith(fragment)


def test_run_chapter_refuses_unknown_names_and_bad_values_before_executing(tmp_path):
    out = tmp_path / "out.ipynb"
    with pytest.raises(InputError, match=r"^mtbf: not a parameter of intro.ipynb"):
        run_chapter(CHAPTERS[0], out, {"mtbf": 4})
    with pytest.raises(InputError, match=r"^gang_sizes: not a parameter of intro.ipynb"):
        run_chapter(CHAPTERS[0], out, {"gang_sizes": [1, 2]})  # declared elsewhere only
    with pytest.raises(InputError, match=r"^spot_discount: must be a fraction"):
        run_chapter(CHAPTERS[0], out, {"spot_discount": 1.5})
    assert not out.exists()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_chapter_structure(chapter):
    notebook = nbformat.read(chapter, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    tagged = [i for i, cell in enumerate(code) if "parameters" in cell.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged parameters"
    parameters = code[tagged[0]].source.splitlines()
    for line in parameters:  # `name: type = literal  # help`, as papermill --help-notebook reads
        assert re.match(r"^\w+: \w+ = .+  # \S", line), line
        assert line.split(":")[0] in BOOK_PARAMETERS
        assert BOOK_PARAMETERS[line.split(":")[0]][1] in line  # the same help everywhere
    # papermill must parse every line (an '=' in a help comment, say, makes it skip one)
    assert list(declared_parameters(chapter)) == [line.split(":")[0] for line in parameters]
    assert "sm.check_book_parameters(" in code[tagged[0] + 1].source
    for cell in code:  # executed, stored, clean
        assert cell.execution_count is not None
        for output in cell.outputs:
            assert output.output_type != "error"
    text = json.dumps(notebook)
    for fragment in ("/work/", "/tmp/", "/root/", "/home/"):
        assert fragment not in text, fragment
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=NAMES)
def test_every_glue_reference_in_the_prose_exists(chapter):
    notebook = nbformat.read(chapter, as_version=4)
    prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    referenced = set(re.findall(r"\{glue:text\}`([^`:]+)", prose))
    referenced |= set(re.findall(r"```\{glue:(?:math|figure|md)\} (\w+)", prose))
    stored = {o.metadata["scrapbook"]["name"] for c in notebook.cells
              for o in c.get("outputs", []) if "scrapbook" in o.get("metadata", {})}
    assert referenced and referenced <= stored, referenced - stored


def test_prose_numbers_come_from_glue():
    """No digits in a chapter's prose outside maths, code, links and the glue-name table."""
    for chapter in CHAPTERS:
        notebook = nbformat.read(chapter, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type != "markdown":
                continue
            text = re.sub(r"```.*?```", "", cell.source, flags=re.S)  # code and glue blocks
            text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)  # display maths
            text = re.sub(r"\$[^$]*\$", "", text)  # inline maths
            text = re.sub(r"\{[a-z:]+\}`[^`]*`|`[^`]*`", "", text)  # roles and literals
            text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
            text = re.sub(r"^\|.*\|$", "", text, flags=re.M)  # tables of names
            text = re.sub(r"^\s*\d+\. ", "", text, flags=re.M)  # numbered lists
            text = re.sub(r"\b(19|20)\d\d\b", "", text)  # publication years
            assert not re.search(r"\d", text), (chapter.stem, re.findall(r".{20}\d.{20}", text))


def test_glue_name_table_lists_real_names():
    notebook = nbformat.read(ROOT / "book" / "your_numbers.ipynb", as_version=4)
    table = next(cell.source for cell in notebook.cells
                 if cell.cell_type == "markdown" and "| chapter | glued names |" in cell.source)
    rows = re.findall(r"^\| \{doc\}`(\w+)` \| (.+) \|$", table, flags=re.M)
    assert [name for name, _ in rows] == NAMES
    for name, names in rows:
        values = glued(ROOT / "book" / f"{name}.ipynb")
        for glue_name in re.findall(r"`(\w+)`", names):
            assert glue_name in values, (name, glue_name)


def test_nbval_catches_a_changed_stored_number(tmp_path):
    """nbval compares glued values: alter one stored number and the check must fail."""
    notebook = nbformat.read(ROOT / "book" / "checkpoint_cost.ipynb", as_version=4)
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == "young_interval_min":
                output.data["application/papermill.record/text/plain"] = "22.5"
    (tmp_path / "book").mkdir()
    nbformat.write(notebook, tmp_path / "book" / "altered.ipynb")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", "-o", "addopts=", str(tmp_path / "book" / "altered.ipynb")],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 1, result.stdout[-2000:]
    assert "22.5" in result.stdout and "21.90890230020664" in result.stdout
