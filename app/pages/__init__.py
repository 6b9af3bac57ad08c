"""The explorer's pages: one package per page, one module per figure.

Each page package exports its :class:`app.page.Page` subclass. A page module
holds only the controls, the rules that tie them together and the layout; each
figure module holds one :class:`app.chart.Chart` with its caption, formula and
(where it has one) the quick check. No page imports another.
"""
