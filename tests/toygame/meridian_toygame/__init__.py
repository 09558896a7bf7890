"""Toy: two players claim the cells a..i of a 3x3 grid in turn; three in a row wins.

A whole game in its own package, registered through the ``meridian_table.games`` entry
point: an engine, an adapter for a 9-site board, a board profile, a record format, a
page script and the random automaton. Meridian Table's tests play it on the virtual
board, log it, replay it and export it, without any shared file naming it.
"""
