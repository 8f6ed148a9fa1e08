"""Columns as a pandas DataFrame when pandas is importable, else a pyarrow Table (pyarrow
is a dependency of Load Lab; pandas is not), and both to Parquet."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np


def has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def table(columns: Mapping[str, np.ndarray]):
    """A DataFrame (pandas installed) or a pyarrow Table of equal-length columns."""
    if has_pandas():
        import pandas as pd

        return pd.DataFrame({k: np.asarray(v) for k, v in columns.items()})
    import pyarrow as pa

    return pa.table({k: np.asarray(v) for k, v in columns.items()})


def write_parquet(data, path: Path) -> Path:
    """One DataFrame or Table to path (pyarrow writes both)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tbl = data if isinstance(data, pa.Table) else pa.Table.from_pandas(data, preserve_index=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(tbl, path)
    return path
