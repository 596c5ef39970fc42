package todo

import "testing"

func TestAdd(t *testing.T) {
	t.Run("appends a todo without changing the input", func(t *testing.T) {
		first, err := Add(nil, "water plants")
		if err != nil {
			t.Fatal(err)
		}
		second, err := Add(first, "  buy milk ")
		if err != nil {
			t.Fatal(err)
		}
		if len(first) != 1 || len(second) != 2 || second[1].Title != "buy milk" {
			t.Errorf("got %v then %v", first, second)
		}
	})
	t.Run("refuses an empty title", func(t *testing.T) {
		if _, err := Add(nil, "   "); err == nil {
			t.Error("want an error for a blank title")
		}
	})
}

func TestCompleteAndPending(t *testing.T) {
	todos, _ := Add(nil, "a")
	todos, _ = Add(todos, "b")
	done, err := Complete(todos, 0)
	if err != nil {
		t.Fatal(err)
	}
	if todos[0].Done {
		t.Error("Complete changed its input")
	}
	if got := Pending(done); len(got) != 1 || got[0].Title != "b" {
		t.Errorf("Pending = %v, want only b", got)
	}
	if _, err := Complete(todos, 5); err == nil {
		t.Error("want an error for a bad index")
	}
}
