//! A tiny todo list. Every operation returns a new list and leaves its input unchanged.

use std::fmt;

/// One item on the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Todo {
    pub title: String,
    pub done: bool,
}

/// What can go wrong with an operation on the list.
#[derive(Debug, PartialEq, Eq)]
pub enum TodoError {
    /// A title that is empty once trimmed.
    EmptyTitle,
    /// An index past the end of the list.
    NoTodoAt(usize),
}

impl fmt::Display for TodoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TodoError::EmptyTitle => write!(f, "a todo needs a title"),
            TodoError::NoTodoAt(index) => write!(f, "no todo at {index}"),
        }
    }
}

impl std::error::Error for TodoError {}

/// A new list with a todo titled `title` at the end.
pub fn add(todos: &[Todo], title: &str) -> Result<Vec<Todo>, TodoError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(TodoError::EmptyTitle);
    }
    let mut out = todos.to_vec();
    out.push(Todo {
        title: title.to_string(),
        done: false,
    });
    Ok(out)
}

/// A new list where the todo at `index` is done.
pub fn complete(todos: &[Todo], index: usize) -> Result<Vec<Todo>, TodoError> {
    if index >= todos.len() {
        return Err(TodoError::NoTodoAt(index));
    }
    let mut out = todos.to_vec();
    out[index].done = true;
    Ok(out)
}

/// The todos not done yet, in order.
pub fn pending(todos: &[Todo]) -> Vec<Todo> {
    todos.iter().filter(|t| !t.done).cloned().collect()
}
