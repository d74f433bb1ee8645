"""pyarrow without pandas: pyarrow imports pandas (about 0.7 s of CPU) the first time it builds
an array, only to ask whether its input is a pandas object. Nothing in the project hands it
one, so the command line (:func:`pmim_analytics.cli.main`) and each rules-check worker
(:mod:`pmim_analytics.replay.rules_check`) let it ask once while pandas cannot be imported.
This module loads nothing but :mod:`sys`."""

from __future__ import annotations

import sys


class _RefusePandas:
    """A meta-path finder under which ``import pandas`` fails (see :func:`arrow_without_pandas`)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not loaded for pyarrow's type checks")


def arrow_without_pandas() -> None:
    """Keep pyarrow from importing pandas (about 0.7 s of CPU, most of an ingest's start-up).

    pyarrow imports pandas the first time it builds any array (``pa.array``, ``pa.table``),
    only to ask whether its input is a pandas object; the project never hands it one. Here it
    asks once while pandas cannot be imported and remembers the answer, "no pandas", for
    those checks. Where pandas is really wanted (``to_pandas``) pyarrow tries again and it
    loads as usual. Does nothing when pyarrow is not loaded, pandas already is, or
    pyarrow's internals differ from what this expects (then it is only slower)."""
    pa = sys.modules.get("pyarrow")
    if pa is None or "pandas" in sys.modules:
        return
    blocker = _RefusePandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.lib._pandas_api.have_pandas  # noqa: B018 -- the check whose answer pyarrow keeps
    except Exception:  # noqa: BLE001, S110 -- a pyarrow without that shim: nothing to do
        pass
    finally:
        sys.meta_path.remove(blocker)
