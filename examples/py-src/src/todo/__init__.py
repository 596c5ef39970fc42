"""A todo list kept as a list of Todo records. Functions never mutate their input."""

from dataclasses import dataclass, replace

__all__ = ["Todo", "add_todo", "complete_todo", "pending"]


@dataclass(frozen=True)
class Todo:
    title: str
    done: bool = False


def add_todo(todos: list[Todo], title: str) -> list[Todo]:
    """A new list with an open todo appended; the title is trimmed and must not be blank."""
    clean = title.strip()
    if not clean:
        raise ValueError("a todo needs a title")
    return [*todos, Todo(clean)]


def complete_todo(todos: list[Todo], index: int) -> list[Todo]:
    """A new list where the todo at `index` (zero-based) is done."""
    if not 0 <= index < len(todos):
        raise IndexError(f"no todo at {index}")
    return [replace(t, done=True) if i == index else t for i, t in enumerate(todos)]


def pending(todos: list[Todo]) -> list[Todo]:
    """The todos not done yet, in order."""
    return [t for t in todos if not t.done]
