"""The game model at the bottom of the layers: vocabulary, hexes, events, game records, combat arithmetic.

Everything above (rules, engine, replay formats, store, analytics) speaks these types;
nothing here imports another package of the project but :mod:`pmim_analytics.errors`.

* :mod:`.vocab` -- sides, unit ids, end reasons, hit locations, mounts;
* :mod:`.hexes` -- the :class:`~.hexes.Hex` type, its notations and hex maths;
* :mod:`.events` -- the events a game is made of;
* :mod:`.record` -- a game's header and its record (header + events);
* :mod:`.combat` -- the arithmetic of an attack.
"""
