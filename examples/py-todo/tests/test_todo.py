import pytest

from todo import add_todo, complete_todo, pending
from todo.format import format_todos


def test_add_todo_appends_a_trimmed_open_todo():
    assert add_todo([], "  water plants ")[0].title == "water plants"


def test_add_todo_refuses_a_blank_title():
    with pytest.raises(ValueError, match="needs a title"):
        add_todo([], "   ")


def test_complete_todo_marks_one_done_without_touching_the_input():
    todos = add_todo(add_todo([], "a"), "b")
    done = complete_todo(todos, 1)
    assert done[1].done is True
    assert todos[1].done is False
    assert [t.title for t in pending(done)] == ["a"]


def test_format_todos_numbers_the_todos_and_ticks_the_done_ones():
    todos = complete_todo(add_todo(add_todo([], "a"), "b"), 0)
    assert format_todos(todos) == "1. [x] a\n2. [ ] b"
    assert format_todos([]) == "(nothing to do)"
