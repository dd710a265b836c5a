import contextlib
import shutil
import signal
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from slow_first import slow_first_key

from wefe_same import Query, WordSet
from wefe_same.models import ArraySource

#: The ``tiny`` fixture: tiny random BERT, RoBERTa and GPT-2 models (tests/tiny_transformers.py);
#: ``bert``, ``gpt2`` (tiny language models) and the likelihood datasets (tests/tiny_lms.py).
pytest_plugins = ["tiny_transformers", "tiny_lms"]


def pytest_collection_modifyitems(items):
    """The measured slowest tests first (tests/slow_first.py); the others keep their order.
    Every xdist worker sorts its collection alike, so the workers' collections still match."""
    items.sort(key=lambda item: slow_first_key(item.nodeid))


GENDER_WORDS = ["he", "man", "she", "woman", "doctor", "engineer", "nurse", "teacher",
                "good", "happy", "bad", "sad"]


def random_source(name: str, seed: int, dim: int = 8, words=GENDER_WORDS) -> ArraySource:
    return ArraySource(name, list(words), np.random.default_rng(seed).normal(size=(len(words), dim)))


@pytest.fixture
def toy_query() -> Query:
    return Query(
        [WordSet("male", ["he", "man"], aligned=True), WordSet("female", ["she", "woman"], aligned=True)],
        [WordSet("career", ["doctor", "engineer"]), WordSet("care", ["nurse", "teacher"])],
        name="toy",
    )


@pytest.fixture
def toy_sources() -> list[ArraySource]:
    return [random_source(f"m{i}", seed=i) for i in range(4)]


def write_glove(path, words, matrix):
    with open(path, "w", encoding="utf-8") as fh:
        for w, row in zip(words, matrix):
            fh.write(w + " " + " ".join(f"{x:.6f}" for x in row) + "\n")
    return path


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own model cache: no test reads another's entries or the user's."""
    monkeypatch.setenv("WEFE_SAME_CACHE", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(scope="module")
def module_encoder_cache(tmp_path_factory):
    """One cache for a module's module-scoped encoder fixtures (file hashes, unpacked
    archives), not the user's; use with ``pytestmark = pytest.mark.usefixtures(...)``."""
    with pytest.MonkeyPatch.context() as m:
        m.setenv("WEFE_SAME_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


def users_folder(path, query: str | None = None):
    """A user's own folder for the hostile-input tests: a note, a query file, a good model."""
    (path / "notes.txt").write_text("my notes")
    (path / "mini.toml").write_text(MINI_QUERY if query is None else query)
    write_glove(path / "good.txt", GENDER_WORDS, np.random.default_rng(0).normal(size=(12, 5)))
    return path


def error_lines(err: str) -> list[str]:
    """stderr without the warning lines: what a failure printed."""
    return [line for line in err.splitlines() if not line.startswith("wefe-same: warning:")]


@contextlib.contextmanager
def numpy_float_alias():
    """``np.float_`` for the duration of importing wefe 0.4.1 (NumPy 2 removed it; wefe's
    modules name it at import, not at run time); removed again unless it was there."""
    had = "float_" in np.__dict__
    if not had:
        np.float_ = np.float64
    try:
        yield
    finally:
        if not had:
            del np.float_


def snapshot(folder) -> dict:
    """{relative path: bytes} of every file under ``folder`` (to show nothing was touched)."""
    from pathlib import Path

    root = Path(folder)
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt during the test, as in a terminal, even when the suite
    was started with SIGINT ignored (``cmd &`` in a script), which the process inherits."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def no_hang(seconds: float = 10):
    """Fail instead of hanging: a loop that never ends fails the test (hypothesis' deadline
    only reports slow examples that finish; gensim's fastText reader once looped forever on
    a cut file)."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


#: A minimal query file: aligned male/female pairs, career vs care.
MINI_QUERY = """
[meta]
name = "mini"
[sets.male]
words = ["he", "man"]
aligned = true
[sets.female]
words = ["she", "woman"]
aligned = true
[sets.career]
words = ["doctor", "engineer"]
[sets.care]
words = ["nurse", "teacher"]
[[queries]]
targets = ["male", "female"]
attributes = ["career", "care"]
"""


# -- headless Chromium, for the report page's own script --------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class _Body(HTMLParser):
    def __init__(self, text: str):
        super().__init__()
        self.attrs: dict[str, str | None] = {}
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.attrs = dict(attrs)


def chromium_body(page: Path, profile: Path, *, width: int | None = None) -> dict[str, str | None]:
    """The ``<body>`` attributes of ``page`` after its scripts ran in headless Chromium (a
    test's script leaves its findings there as ``data-*`` attributes)."""
    size = [f"--window-size={width},1000"] if width else []
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", *size,
                           f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return _Body(done.stdout).attrs
