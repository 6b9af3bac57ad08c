"""The server collects garbage less often than Python would (app.main.collect_garbage_less_often).

A small run of ``benchmarks/gc_pauses.py``: each setting in a fresh process
builds a few sessions in-process and replays the same changes. With
Python's thresholds the collector walks every live object (a full
collection) several times on the way; with the app's, which importing
``app.main`` sets as serving it does, not once. The numbers of a classroom's
size are the benchmark's (README, "Speed").
"""

from __future__ import annotations

import gc

import app.main
from benchmarks.gc_pauses import PYTHON_THRESHOLDS, run_child


def _run(setting: str) -> dict:
    # A few sessions and changes: enough for Python's thresholds to collect in full.
    return run_child(setting, sessions=6, changes=40)


def test_importing_the_app_sets_its_thresholds():
    assert tuple(app.main.GC_THRESHOLDS) != PYTHON_THRESHOLDS
    assert gc.get_threshold() == app.main.GC_THRESHOLDS


def test_a_server_with_open_sessions_walks_them_all_less_often():
    python, ours = _run("python"), _run("app")
    assert tuple(python["thresholds"]) == PYTHON_THRESHOLDS
    assert tuple(ours["thresholds"]) == app.main.GC_THRESHOLDS
    full = {r["setting"]: len(r["pauses"]["2"]) for r in (python, ours)}
    assert full["python"] >= 2, full
    assert full["app"] == 0, full
    longest = {
        r["setting"]: max(x for v in r["pauses"].values() for x in v) for r in (python, ours)
    }
    assert longest["app"] < longest["python"], longest
