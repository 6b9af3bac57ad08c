"""The Positional Encoding Explorer app: one Panel page per module, composed by ``main.py``.

Served with ``panel serve app`` (Bokeh loads this directory as a package, so the
modules use relative imports); importable as ``app`` for tests and embedding.
"""
