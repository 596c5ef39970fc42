import unittest

from todo import add_todo, complete_todo, pending
from todo.format import format_todos


class TodoListTest(unittest.TestCase):
    def test_add_todo_appends_a_trimmed_open_todo(self):
        self.assertEqual(add_todo([], "  water plants ")[0].title, "water plants")

    def test_add_todo_refuses_a_blank_title(self):
        with self.assertRaisesRegex(ValueError, "needs a title"):
            add_todo([], "   ")

    def test_complete_todo_marks_one_done_without_touching_the_input(self):
        todos = add_todo(add_todo([], "a"), "b")
        done = complete_todo(todos, 1)
        self.assertIs(done[1].done, True)
        self.assertIs(todos[1].done, False)
        self.assertEqual([t.title for t in pending(done)], ["a"])

    def test_format_todos_numbers_the_todos_and_ticks_the_done_ones(self):
        todos = complete_todo(add_todo(add_todo([], "a"), "b"), 0)
        self.assertEqual(format_todos(todos), "1. [x] a\n2. [ ] b")
        self.assertEqual(format_todos([]), "(nothing to do)")


if __name__ == "__main__":
    unittest.main()
