"""A ``--bots`` list split into its bots, in a module that loads nothing (the command line
counts the bots, to word a refusal, before it loads the bots themselves)."""

from __future__ import annotations


def split_bot_list(text: str) -> list[str]:
    """The bot specs of a comma-separated list (``random,greedy,search:budget=400``), unchecked.

    A piece holding ``=`` but no ``:`` is a further parameter of the bot before it
    (``search:budget=800,persona=aggressive`` is one bot); empty pieces are dropped.
    """
    items: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if not piece:
            continue
        if items and ":" not in piece and "=" in piece:
            items[-1] += "," + piece  # a further parameter of the previous bot
        else:
            items.append(piece)
    return items
