import math

import pandas as pd
import pytest

from hoptcp import SpecError, batch_means, jain, mean_ci, summarize


def test_mean_ci_student_t():
    est = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert est.mean == 2.5 and est.n == 4
    # t(0.975, 3) = 3.182446, s = 1.290994
    assert est.ci == pytest.approx(3.182446 * 1.290994 / 2, rel=1e-5)
    assert est.low < est.mean < est.high
    one = mean_ci([5.0])
    assert one.mean == 5.0 and math.isnan(one.ci)
    assert mean_ci([]).n == 0
    assert mean_ci([1.0, None, float("nan"), 3.0]).n == 2
    assert mean_ci([1, 2, 3], confidence=0.99).ci > mean_ci([1, 2, 3]).ci


def test_batch_means_discards_first_batch():
    series = [100.0] * 10 + [1.0, 3.0] * 25  # warm-up batch of 10, then steady state
    est = batch_means(series, batch_size=10)
    assert est.n == 5 and est.mean == pytest.approx(2.0)
    assert batch_means(series, n_batches=6).n == 5
    assert batch_means(series, batch_size=10, discard=0).mean > 2.0
    with pytest.raises(SpecError):
        batch_means(series, batch_size=100)
    with pytest.raises(SpecError):
        batch_means(series)


def test_jain():
    assert jain([1, 1, 1, 1]) == pytest.approx(1.0)
    assert jain([1, 0, 0, 0]) == pytest.approx(0.25)
    assert math.isnan(jain([]))


def test_summarize_groups_by_params():
    df = pd.DataFrame({"w": [1, 1, 2, 2, 2], "seed": [1, 2, 1, 2, 3], "g": [1.0, 3.0, 10.0, 11.0, 12.0],
                       "h": [0.0, 0.0, 1.0, 1.0, 1.0]})
    df.attrs.update(params=["w"], metrics=["g", "h"])
    s = summarize(df)
    assert list(s["w"]) == [1, 2] and list(s["n"]) == [2, 3]
    assert list(s["g"]) == [2.0, 11.0]
    assert s.loc[1, "g_ci"] == pytest.approx(mean_ci([10, 11, 12]).ci)
    assert {"g_lo", "g_hi", "g_std", "h"} <= set(s.columns)
    only = summarize(df, by="w", metrics=["g"])
    assert "h" not in only.columns
    with pytest.raises(SpecError, match="matches no metric"):
        summarize(df, metrics=["nope"])
    with pytest.raises(SpecError, match="no column"):
        summarize(df, by=["x"])
    total = summarize(df, by=[], metrics=["g"])
    assert total["n"].item() == 5
