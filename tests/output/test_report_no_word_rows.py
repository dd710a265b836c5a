"""``wefe-same report`` on a run whose word-level table has no rows (metrics without
per-word values): the page is rebuilt, not a pyarrow traceback."""

from conftest import MINI_QUERY, random_source

from wefe_same import Execution, rank
from wefe_same.cli import main
from wefe_same.output.report_html import REPORT


def test_a_run_without_word_rows_rebuilds_its_report(tmp_path, capsys):
    (tmp_path / "mini.toml").write_text(MINI_QUERY)
    result = rank([random_source("a", 1), random_source("b", 2)], [str(tmp_path / "mini.toml")], ["RND"],
                  execution=Execution(cache=False, progress=False))
    folder = result.save(tmp_path / "results", formats=())
    assert len(result.word_table) == 0
    written = (folder / REPORT).read_text()
    assert main(["report", str(folder)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    rebuilt = (folder / REPORT).read_text()
    assert 'aria-label="Per-metric rankings"' in rebuilt and rebuilt.count("RND") == written.count("RND")
