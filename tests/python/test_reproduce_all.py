"""`hoptcp reproduce all`'s start line: how long it expects to take."""


def test_expected_time_comes_from_the_same_runs_under_earlier_builds(tmp_path):
    """The start line's estimate reads the store: a run another build made counts its time there."""
    from hoptcp.reproduce.report import expected_todo_s
    from hoptcp.store import Store

    # Two of four runs to do have earlier times (3 s and 5 s): the four are expected to take 16 s.
    assert expected_todo_s(10, 4, [3.0, 5.0], None) == 16.0
    # No earlier runs: the earlier report's summed time, pro rata; nothing at all: unknown.
    assert expected_todo_s(10, 4, [], 50.0) == 20.0
    assert expected_todo_s(10, 4, [], None) is None
    assert expected_todo_s(10, 0, [], None) == 0.0
    with Store(tmp_path / "s.db") as db:
        db._db.execute("INSERT INTO runs (scenario_hash, seed, hoptcp_version, sweep, params, scenario, metrics, "
                       "result, wall_time_s, created_at) VALUES ('h', 1, 'old', '', '{}', '{}', '{}', '{}', 2.5, "
                       "'2026-01-01'), ('h', 1, 'older', '', '{}', '{}', '{}', '{}', 9.0, '2025-01-01'), "
                       "('h', 2, 'new', '', '{}', '{}', '{}', '{}', 1.0, '2026-01-02')")
        got = db.past_wall_times([("h", 1), ("h", 2), ("x", 1)], "new")
    assert got == {("h", 1): 2.5}
