"""Rendering a todo list as plain text, one line per todo."""

from todo import Todo


def format_todos(todos: list[Todo]) -> str:
    """`1. [x] water plants` lines; `(nothing to do)` for an empty list."""
    if not todos:
        return "(nothing to do)"
    return "\n".join(f"{i}. [{'x' if t.done else ' '}] {t.title}" for i, t in enumerate(todos, start=1))
