// Package todo keeps a list of things to do. Every operation returns a new list and leaves its
// input unchanged.
package todo

import (
	"errors"
	"fmt"
	"strings"
)

// Todo is one item on the list.
type Todo struct {
	Title string
	Done  bool
}

// Add returns a new list with a todo titled title at the end.
func Add(todos []Todo, title string) ([]Todo, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, errors.New("a todo needs a title")
	}
	out := make([]Todo, len(todos), len(todos)+1)
	copy(out, todos)
	return append(out, Todo{Title: title}), nil
}

// Complete returns a new list where the todo at index is done.
func Complete(todos []Todo, index int) ([]Todo, error) {
	if index < 0 || index >= len(todos) {
		return nil, fmt.Errorf("no todo at %d", index)
	}
	out := make([]Todo, len(todos))
	copy(out, todos)
	out[index].Done = true
	return out, nil
}

// Pending returns the todos not done yet, in order.
func Pending(todos []Todo) []Todo {
	var out []Todo
	for _, t := range todos {
		if !t.Done {
			out = append(out, t)
		}
	}
	return out
}
