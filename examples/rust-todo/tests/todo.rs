use todo_list::{add, complete, pending, TodoError};

#[test]
fn add_appends_a_trimmed_title() {
    let todos = add(&[], "  water plants ").unwrap();
    assert_eq!(todos.len(), 1);
    assert_eq!(todos[0].title, "water plants");
    assert!(!todos[0].done);
}

#[test]
fn add_refuses_an_empty_title() {
    assert_eq!(add(&[], "   "), Err(TodoError::EmptyTitle));
}

mod complete_and_pending {
    use super::*;

    #[test]
    fn complete_leaves_the_input_unchanged() {
        let todos = add(&[], "a").unwrap();
        let done = complete(&todos, 0).unwrap();
        assert!(done[0].done);
        assert!(!todos[0].done);
    }

    #[test]
    fn complete_refuses_an_index_past_the_end() {
        assert_eq!(complete(&[], 2), Err(TodoError::NoTodoAt(2)));
        assert_eq!(TodoError::NoTodoAt(2).to_string(), "no todo at 2");
    }

    #[test]
    fn pending_keeps_the_order() {
        let todos = add(&add(&add(&[], "a").unwrap(), "b").unwrap(), "c").unwrap();
        let left = pending(&complete(&todos, 1).unwrap());
        let titles: Vec<&str> = left.iter().map(|t| t.title.as_str()).collect();
        assert_eq!(titles, ["a", "c"]);
    }
}
