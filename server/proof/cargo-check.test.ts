/**
 * Rust's side of the contract check: assertions counted in the file's code, and why a `cargo test`
 * run failed, read from what cargo 1.95 printed for small std-only crates (stdout and stderr in
 * one file, as Tilth runs it, RUST_BACKTRACE=0).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyCargo, countRustAssertions } from './cargo-check.ts';

const out = (...lines: string[]) => `${lines.join('\n')}\n`;

const NO_CARGO = out('/tmp/fx/no-cargo.txt: 1: exec: cargo: not found');

const NO_MANIFEST = out('error: could not find `Cargo.toml` in `/tmp/cargo-probe-empty` or any parent directory');

const NO_TARGET = out(
  'error: no test target named `nope` in default-run packages',
  'help: available test targets:',
  '    t001_add',
  '    t002_abort',
  '    t003_exit',
  '    t004_broken',
  '    t005_forge',
  '    t006_forge_exit',
  '    t007_exits',
  '    t008_exit101',
);

const NO_SERDE = out(
  'error: no matching package named `serde` found',
  'location searched: crates.io index',
  'required by package `dep v0.1.0 (/tmp/cargo-probe-dep)`',
  "As a reminder, you're using offline mode (--offline) which can sometimes cause surprising resolution failures, if this error is too confusing you may wish to retry without `--offline`.",
);

const GIT_DEPENDENCY = out(
  'error: failed to get `foo` as a dependency of package `dep v0.1.0 (/tmp/cargo-probe-dep)`',
  '',
  'Caused by:',
  '  failed to load source for dependency `foo`',
  '',
  'Caused by:',
  '  unable to update https://github.com/example/foo',
  '',
  'Caused by:',
  "  can't checkout from 'https://github.com/example/foo': you are in the offline mode (--offline)",
);

const LOCK_CREATE = out(
  'error: cannot create the lock file /tmp/cargo-probe-dep/Cargo.lock because --locked was passed to prevent this',
  'help: to generate the lock file without accessing the network, remove the --locked flag and use --offline instead.',
);

const LOCK_UPDATE = out(
  'error: cannot update the lock file /tmp/cargo-probe-dep/Cargo.lock because --locked was passed to prevent this',
  'help: to generate the lock file without accessing the network, remove the --locked flag and use --offline instead.',
);

const BAD_MANIFEST = out('error: string values must be quoted, expected literal string', ' --> Cargo.toml:3:11', '  |', '3 | version = ', '  |           ^');

const SYNTAX = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error: expected expression, found `;`',
  ' --> tests/syntax.rs:3:13',
  '  |',
  '3 |     let x = ;',
  '  |             ^ expected expression',
  '',
  'error: could not compile `my-crt` (test "syntax") due to 1 previous error',
);

const UNCLOSED = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error: this file contains an unclosed delimiter',
  ' --> tests/unclosed.rs:3:23',
  '  |',
  '2 | fn t() {',
  '  |        - unclosed delimiter',
  '3 |     assert_eq!(1, 1);',
  '  |                      ^',
  '',
  'error: could not compile `my-crt` (test "unclosed") due to 1 previous error',
);

const UNEXPECTED_CLOSE = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error: unexpected closing delimiter: `}`',
  ' --> tests/unexpected_close.rs:4:1',
  '  |',
  '2 | fn t() {',
  '  |        - this delimiter might not be properly closed...',
  '3 |     assert_eq!(1, 1); }',
  '  |                       - ...as it matches this but it has different indentation',
  '4 | }',
  '  | ^ unexpected closing delimiter',
  '',
  'error: could not compile `my-crt` (test "unexpected_close") due to 1 previous error',
);

const MISMATCHED_DELIMITER = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error: mismatched closing delimiter: `]`',
  ' --> tests/mismatched.rs:3:13',
  '  |',
  '3 |     let x = (1, 2];',
  '  |             ^    ^ mismatched closing delimiter',
  '  |             |',
  '  |             unclosed delimiter',
  '',
  'error: could not compile `my-crt` (test "mismatched") due to 1 previous error',
);

const LIB_SYNTAX = out(
  '   Compiling libsyn v0.1.0 (/tmp/cargo-probe-libsyn)',
  'error: expected pattern, found `=`',
  ' --> src/lib.rs:2:9',
  '  |',
  '2 |     let = 1;',
  '  |         ^ expected pattern',
  '',
  'error: could not compile `libsyn` (lib) due to 1 previous error',
);

const E0425_CRATE = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0425]: cannot find function `missing` in crate `my_crt`',
  ' --> tests/e0425_crate.rs:2:29',
  '  |',
  '2 | fn t() { assert_eq!(my_crt::missing(1), 1); }',
  '  |                             ^^^^^^^ not found in `my_crt`',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'error: could not compile `my-crt` (test "e0425_crate") due to 1 previous error',
);

const E0425_SCOPE = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'warning: unused import: `my_crt::*`',
  ' --> tests/e0425_scope.rs:1:5',
  '  |',
  '1 | use my_crt::*;',
  '  |     ^^^^^^^^^',
  '  |',
  '  = note: `#[warn(unused_imports)]` (part of `#[warn(unused)]`) on by default',
  '',
  'error[E0425]: cannot find function `missing` in this scope',
  ' --> tests/e0425_scope.rs:3:21',
  '  |',
  '3 | fn t() { assert_eq!(missing(1), 1); }',
  '  |                     ^^^^^^^ not found in this scope',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'warning: `my-crt` (test "e0425_scope") generated 1 warning',
  'error: could not compile `my-crt` (test "e0425_scope") due to 1 previous error; 1 warning emitted',
);

const E0425_TYPE = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0425]: cannot find type `Priority` in crate `my_crt`',
  ' --> tests/e0412_type.rs:2:33',
  '  |',
  '2 | fn t() { let _x: Option<my_crt::Priority> = None; }',
  '  |                                 ^^^^^^^^ not found in `my_crt`',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'error: could not compile `my-crt` (test "e0412_type") due to 1 previous error',
);

const E0422_STRUCT = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0422]: cannot find struct, variant or union type `Priority` in crate `my_crt`',
  ' --> tests/e0422_struct.rs:2:27',
  '  |',
  '2 | fn t() { let _x = my_crt::Priority { level: 1 }; }',
  '  |                           ^^^^^^^^ not found in `my_crt`',
  '',
  'For more information about this error, try `rustc --explain E0422`.',
  'error: could not compile `my-crt` (test "e0422_struct") due to 1 previous error',
);

const E0432_ROOT = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0432]: unresolved import `my_crt::missing`',
  ' --> tests/e0432_root.rs:1:5',
  '  |',
  '1 | use my_crt::missing;',
  '  |     ^^^^^^^^^^^^^^^ no `missing` in the root',
  '',
  'For more information about this error, try `rustc --explain E0432`.',
  'error: could not compile `my-crt` (test "e0432_root") due to 1 previous error',
);

const E0432_MODULE = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0432]: unresolved import `my_crt::stats`',
  ' --> tests/e0432_mod.rs:1:13',
  '  |',
  '1 | use my_crt::stats::mean;',
  '  |             ^^^^^ could not find `stats` in `my_crt`',
  '',
  'For more information about this error, try `rustc --explain E0432`.',
  'error: could not compile `my-crt` (test "e0432_mod") due to 1 previous error',
);

const E0433_MODULE = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0433]: cannot find `stats` in `my_crt`',
  ' --> tests/e0433_mod.rs:2:29',
  '  |',
  '2 | fn t() { assert_eq!(my_crt::stats::mean(&[1.0]), 1.0); }',
  '  |                             ^^^^^ could not find `stats` in `my_crt`',
  '',
  'For more information about this error, try `rustc --explain E0433`.',
  'error: could not compile `my-crt` (test "e0433_mod") due to 1 previous error',
);

const E0599_METHOD = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0599]: no method named `is_done` found for struct `Todo` in the current scope',
  ' --> tests/e0599_method.rs:2:52',
  '  |',
  '2 | fn t() { let t = my_crt::Todo::new("a"); assert!(t.is_done()); }',
  '  |                                                    ^^^^^^^ method not found in `Todo`',
  '',
  'For more information about this error, try `rustc --explain E0599`.',
  'error: could not compile `my-crt` (test "e0599_method") due to 1 previous error',
);

const E0599_ASSOCIATED = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0599]: no function or associated item named `with_priority` found for struct `Todo` in the current scope',
  ' --> tests/e0599_assoc.rs:2:32',
  '  |',
  '2 | fn t() { let t = my_crt::Todo::with_priority("a", 1); assert_eq!(t.title, "a"); }',
  '  |                                ^^^^^^^^^^^^^ function or associated item not found in `Todo`',
  '  |',
  "note: if you're trying to build a new `Todo`, consider using `Todo::new` which returns `Todo`",
  ' --> src/lib.rs:6:5',
  '  |',
  '6 |     pub fn new(title: &str) -> Todo {',
  '  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
  '',
  'For more information about this error, try `rustc --explain E0599`.',
  'error: could not compile `my-crt` (test "e0599_assoc") due to 1 previous error',
);

const E0609_FIELD = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0609]: no field `priority` on type `Todo`',
  ' --> tests/e0609_field.rs:2:55',
  '  |',
  '2 | fn t() { let t = my_crt::Todo::new("a"); assert_eq!(t.priority, 1); }',
  '  |                                                       ^^^^^^^^ unknown field',
  '  |',
  '  = note: available field is: `title`',
  '',
  'For more information about this error, try `rustc --explain E0609`.',
  'error: could not compile `my-crt` (test "e0609_field") due to 1 previous error',
);

const E0560_FIELD = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0560]: struct `Todo` has no field named `priority`',
  ' --> tests/e0560_struct.rs:2:52',
  '  |',
  '2 | fn t() { let t = my_crt::Todo { title: "a".into(), priority: 1 }; assert_eq!(t.title, "a"); }',
  '  |                                                    ^^^^^^^^ `Todo` does not have this field',
  '  |',
  '  = note: all struct fields are already assigned',
  '',
  'For more information about this error, try `rustc --explain E0560`.',
  'error: could not compile `my-crt` (test "e0560_struct") due to 1 previous error',
);

const MANY_MISSING = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0432]: unresolved import `my_crt::Priority`',
  ' --> tests/conseq.rs:1:20',
  '  |',
  '1 | use my_crt::{Todo, Priority};',
  '  |                    ^^^^^^^^ no `Priority` in the root',
  '',
  'error[E0425]: cannot find function `missing` in crate `my_crt`',
  ' --> tests/conseq.rs:7:21',
  '  |',
  '7 |     let v = my_crt::missing(3);',
  '  |                     ^^^^^^^ not found in `my_crt`',
  '',
  'error[E0425]: cannot find function `top` in module `my_crt::list`',
  '  --> tests/conseq.rs:13:30',
  '   |',
  '13 |     items.push(my_crt::list::top(1));',
  '   |                              ^^^ not found in `my_crt::list`',
  '',
  'error[E0609]: no field `priority` on type `Todo`',
  ' --> tests/conseq.rs:6:7',
  '  |',
  '6 |     t.priority = Priority::High;',
  '  |       ^^^^^^^^ unknown field',
  '  |',
  '  = note: available field is: `title`',
  '',
  'error[E0599]: no method named `level` found for struct `Todo` in the current scope',
  ' --> tests/conseq.rs:9:18',
  '  |',
  '9 |     assert_eq!(t.level(), n + 1);',
  '  |                  ^^^^^ method not found in `Todo`',
  '',
  'error[E0560]: struct `Todo` has no field named `done`',
  '  --> tests/conseq.rs:10:47',
  '   |',
  '10 |     let s = my_crt::Todo { title: "x".into(), done: false };',
  '   |                                               ^^^^ `Todo` does not have this field',
  '   |',
  '   = note: all struct fields are already assigned',
  '',
  'error[E0609]: no field `done` on type `Todo`',
  '  --> tests/conseq.rs:11:15',
  '   |',
  '11 |     assert!(s.done);',
  '   |               ^^^^ unknown field',
  '   |',
  '   = note: available field is: `title`',
  '',
  'Some errors have detailed explanations: E0425, E0432, E0560, E0599, E0609.',
  'For more information about an error, try `rustc --explain E0425`.',
  'error: could not compile `my-crt` (test "conseq") due to 7 previous errors',
);

/** One `use` line with two paths the crate does not have yet: one error names both (the rust-todo journey's seed). */
const TWO_IMPORTS = out(
  '   Compiling my-crt v0.1.0 (/tmp/tilth-test-A3jsH8/sessions/20261129-012017-bf642c/workspace)',
  'error[E0432]: unresolved imports `my_crt::set_priority`, `my_crt::Priority`',
  ' --> tests/t001_priority.rs:1:22',
  '  |',
  '1 | use my_crt::{add, set_priority, Priority, TodoError};',
  '  |                   ^^^^^^^^^^^^  ^^^^^^^^ no `Priority` in the root',
  '  |                   |',
  '  |                   no `set_priority` in the root',
  '',
  'For more information about this error, try `rustc --explain E0432`.',
  'error: could not compile `my-crt` (test "t001_priority") due to 1 previous error',
);

const MANY_MISSING_GLOBBED = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error: cannot find macro `my_macro` in this scope',
  '  --> tests/conseq2.rs:12:13',
  '   |',
  '12 |     assert!(my_macro!(1));',
  '   |             ^^^^^^^^',
  '',
  'error[E0433]: cannot find `Prio` in `my_crt`',
  ' --> tests/conseq2.rs:7:21',
  '  |',
  '7 |     let q = my_crt::Prio::High;',
  '  |                     ^^^^ could not find `Prio` in `my_crt`',
  '',
  'error[E0425]: cannot find type `Widget` in this scope',
  '  --> tests/conseq2.rs:10:12',
  '   |',
  '10 |     let z: Widget = make_widget();',
  '   |            ^^^^^^ not found in this scope',
  '',
  'error[E0425]: cannot find value `NEW_CONST` in this scope',
  '  --> tests/conseq2.rs:11:13',
  '   |',
  '11 |     let w = NEW_CONST;',
  '   |             ^^^^^^^^^ not found in this scope',
  '',
  'error[E0433]: cannot find type `Priority` in this scope',
  ' --> tests/conseq2.rs:5:13',
  '  |',
  '5 |     let p = Priority::High;',
  '  |             ^^^^^^^^ use of undeclared type `Priority`',
  '',
  'error[E0599]: no variant or associated item named `High` found for enum `my_crt::Level` in the current scope',
  ' --> tests/conseq2.rs:6:20',
  '  |',
  '6 |     let l = Level::High;',
  '  |                    ^^^^ variant or associated item not found in `my_crt::Level`',
  '',
  'error[E0026]: struct `my_crt::Todo` does not have a field named `done`',
  ' --> tests/conseq2.rs:8:23',
  '  |',
  '8 |     let Todo { title, done } = Todo::new("a");',
  '  |                       ^^^^ struct `my_crt::Todo` does not have this field',
  '',
  'error[E0599]: no associated item named `MAX` found for struct `my_crt::Todo` in the current scope',
  ' --> tests/conseq2.rs:9:19',
  '  |',
  '9 |     let c = Todo::MAX;',
  '  |                   ^^^ associated item not found in `my_crt::Todo`',
  '',
  'error[E0425]: cannot find function `make_widget` in this scope',
  '  --> tests/conseq2.rs:10:21',
  '   |',
  '10 |     let z: Widget = make_widget();',
  '   |                     ^^^^^^^^^^^ not found in this scope',
  '',
  'Some errors have detailed explanations: E0026, E0425, E0433, E0599.',
  'For more information about an error, try `rustc --explain E0026`.',
  'error: could not compile `my-crt` (test "conseq2") due to 9 previous errors',
);

const STD_MISSING = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0425]: cannot find function `nothing` in module `std::fs`',
  ' --> tests/std_missing.rs:3:22',
  '  |',
  '3 |     assert!(std::fs::nothing());',
  '  |                      ^^^^^^^ not found in `std::fs`',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'error: could not compile `my-crt` (test "std_missing") due to 1 previous error',
);

const STD_IMPORT = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0432]: unresolved import `std::collections::Nothing`',
  ' --> tests/std_import.rs:1:5',
  '  |',
  '1 | use std::collections::Nothing;',
  '  |     ^^^^^^^^^^^^^^^^^^^^^^^^^ no `Nothing` in `collections`',
  '',
  'For more information about this error, try `rustc --explain E0432`.',
  'error: could not compile `my-crt` (test "std_import") due to 1 previous error',
);

const MISSING_AND_MISMATCH = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-a)',
  'error[E0425]: cannot find function `missing` in crate `crt`',
  ' --> tests/t004_broken.rs:6:21',
  '  |',
  '6 |     assert_eq!(crt::missing(1), add(1, 0));',
  '  |                     ^^^^^^^ not found in `crt`',
  '',
  'error[E0308]: mismatched types',
  ' --> tests/t004_broken.rs:5:18',
  '  |',
  '5 |     let x: i32 = "s";',
  '  |            ---   ^^^ expected `i32`, found `&str`',
  '  |            |',
  '  |            expected due to this',
  '',
  'Some errors have detailed explanations: E0308, E0425.',
  'For more information about an error, try `rustc --explain E0308`.',
  'error: could not compile `crt` (test "t004_broken") due to 2 previous errors',
);

const LIB_BROKEN = out(
  '   Compiling lbad v0.1.0 (/tmp/cargo-probe-lib)',
  'error[E0599]: no method named `nothing` found for type `i32` in the current scope',
  ' --> src/lib.rs:2:10',
  '  |',
  '2 |     1i32.nothing()',
  '  |          ^^^^^^^ method not found in `i32`',
  '',
  'For more information about this error, try `rustc --explain E0599`.',
  'error: could not compile `lbad` (lib) due to 1 previous error',
);

const SERDE_JSON = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0433]: cannot find module or crate `serde_json` in this scope',
  ' --> tests/extern_crate.rs:2:37',
  '  |',
  '2 | fn t() { let v: serde_json::Value = serde_json::from_str("1").unwrap(); assert!(v.is_number()); }',
  '  |                                     ^^^^^^^^^^ use of unresolved module or unlinked crate `serde_json`',
  '  |',
  '  = help: if you wanted to use a crate named `serde_json`, use `cargo add serde_json` to add it to your `Cargo.toml`',
  '',
  'error[E0433]: cannot find module or crate `serde_json` in this scope',
  ' --> tests/extern_crate.rs:2:17',
  '  |',
  '2 | fn t() { let v: serde_json::Value = serde_json::from_str("1").unwrap(); assert!(v.is_number()); }',
  '  |                 ^^^^^^^^^^ use of unresolved module or unlinked crate `serde_json`',
  '  |',
  '  = help: if you wanted to use a crate named `serde_json`, use `cargo add serde_json` to add it to your `Cargo.toml`',
  '',
  'For more information about this error, try `rustc --explain E0433`.',
  'error: could not compile `my-crt` (test "extern_crate") due to 2 previous errors',
);

const SERDE_IMPORT = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0432]: unresolved import `serde`',
  ' --> tests/extern_use.rs:1:5',
  '  |',
  '1 | use serde::Deserialize;',
  '  |     ^^^^^ use of unresolved module or unlinked crate `serde`',
  '  |',
  '  = help: if you wanted to use a crate named `serde`, use `cargo add serde` to add it to your `Cargo.toml`',
  '',
  'For more information about this error, try `rustc --explain E0432`.',
  'error: could not compile `my-crt` (test "extern_use") due to 1 previous error',
);

const EXTERN_RAND = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  "error[E0463]: can't find crate for `rand`",
  ' --> tests/extern_crate_decl.rs:1:1',
  '  |',
  '1 | extern crate rand;',
  "  | ^^^^^^^^^^^^^^^^^^ can't find crate",
  '',
  'For more information about this error, try `rustc --explain E0463`.',
  'error: could not compile `my-crt` (test "extern_crate_decl") due to 1 previous error',
);

const NO_LIBRARY = out(
  '   Compiling bin-only v0.1.0 (/tmp/cargo-probe-bin)',
  'error[E0432]: unresolved import `bin_only`',
  ' --> tests/t001_run.rs:1:5',
  '  |',
  '1 | use bin_only::run;',
  '  |     ^^^^^^^^ use of unresolved module or unlinked crate `bin_only`',
  '  |',
  '  = help: if you wanted to use a crate named `bin_only`, use `cargo add bin_only` to add it to your `Cargo.toml`',
  '',
  'For more information about this error, try `rustc --explain E0432`.',
  'error: could not compile `bin-only` (test "t001_run") due to 1 previous error',
  'warning: build failed, waiting for other jobs to finish...',
);

const E0308 = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0308]: mismatched types',
  ' --> tests/e0308.rs:2:40',
  '  |',
  '2 | fn t() { assert_eq!(my_crt::add(1, 2), "3"); }',
  '  |                                        ^^^ expected `i32`, found `&str`',
  '',
  'For more information about this error, try `rustc --explain E0308`.',
  'error: could not compile `my-crt` (test "e0308") due to 1 previous error',
);

const E0061 = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'error[E0061]: this function takes 2 arguments but 1 argument was supplied',
  '  --> tests/e0061.rs:2:21',
  '   |',
  ' 2 | fn t() { assert_eq!(my_crt::add(1), 1); }',
  '   |                     ^^^^^^^^^^^--- argument #2 of type `i32` is missing',
  '   |',
  'note: function defined here',
  '  --> src/lib.rs:15:8',
  '   |',
  '15 | pub fn add(a: i32, b: i32) -> i32 {',
  '   |        ^^^',
  'help: provide the argument',
  '   |',
  ' 2 | fn t() { assert_eq!(my_crt::add(1, /* i32 */), 1); }',
  '   |                                  +++++++++++',
  '',
  'For more information about this error, try `rustc --explain E0061`.',
  'error: could not compile `my-crt` (test "e0061") due to 1 previous error',
);

const PASSES = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)',
  '',
  'running 1 test',
  'test inner::deep ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s',
  '',
);

const EXACT_NONE = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)',
  '',
  'running 0 tests',
  '',
  'test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 5 filtered out; finished in 0.00s',
  '',
);

const NO_TESTS = out(
  '   Compiling my-crt v0.1.0 (/tmp/cargo-probe-b)',
  'warning: function `not_a_test` is never used',
  ' --> tests/zero.rs:1:4',
  '  |',
  '1 | fn not_a_test() {}',
  '  |    ^^^^^^^^^^',
  '  |',
  '  = note: `#[warn(dead_code)]` (part of `#[warn(unused)]`) on by default',
  '',
  'warning: `my-crt` (test "zero") generated 1 warning',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.69s',
  '     Running tests/zero.rs (target/debug/deps/zero-ae05cd97bbd2a5cb)',
  '',
  'running 0 tests',
  '',
  'test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
);

const FAILS = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)',
  '',
  'running 5 tests',
  'test fails ... FAILED',
  'test adds ... ok',
  'test skipped ... ignored',
  'test skipped_reason ... ignored, not yet',
  'test inner::deep ... ok',
  '',
  'failures:',
  '',
  '---- fails stdout ----',
  'some output',
  '',
  "thread 'fails' (706) panicked at tests/t001_add.rs:11:5:",
  'assertion `left == right` failed: two and two',
  '  left: 4',
  ' right: 5',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    fails',
  '',
  'test result: FAILED. 2 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'error: test failed, to rerun pass `--test t001_add`',
  'error: 1 target failed:',
  '    `--test t001_add`',
);

const ABORT = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.03s',
  '     Running tests/t002_abort.rs (target/debug/deps/t002_abort-c94c35a7fd2e1bac)',
  '',
  'running 2 tests',
  'error: test failed, to rerun pass `--test t002_abort`',
  '',
  'Caused by:',
  "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t002_abort-c94c35a7fd2e1bac` (signal: 6, SIGABRT: process abort signal)",
  'error: 1 target failed:',
  '    `--test t002_abort`',
);

const EXIT_101 = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.03s',
  '     Running tests/t008_exit101.rs (target/debug/deps/t008_exit101-06c5536d9902a9fa)',
  '',
  'running 1 test',
  'error: test failed, to rerun pass `--test t008_exit101`',
  'error: 1 target failed:',
  '    `--test t008_exit101`',
);

const EXIT_0 = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t003_exit.rs (target/debug/deps/t003_exit-9ee29308477411b5)',
  '',
  'running 1 test',
);

const SUMMARY_THEN_EXIT_1 = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.80s',
  '     Running tests/forged_exit1.rs (target/debug/deps/forged_exit1-7921b64c66e45f20)',
  '',
  'running 1 test',
  'test forger ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'error: test failed, to rerun pass `--test forged_exit1`',
  '',
  'Caused by:',
  "  process didn't exit successfully: `/tmp/cargo-probe-c/target/debug/deps/forged_exit1-7921b64c66e45f20` (exit status: 1)",
  'note: test exited abnormally; to see the full output pass --no-capture to the harness.',
  'error: 1 target failed:',
  '    `--test forged_exit1`',
);

const EXIT_1_MID_RUN = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t007_exits.rs (target/debug/deps/t007_exits-10e0d6fa0064e0a0)',
  '',
  'running 4 tests',
  'test fine ... ok',
  'test no_panic - should panic ... FAILED',
  'error: test failed, to rerun pass `--test t007_exits`',
  '',
  'Caused by:',
  "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t007_exits-10e0d6fa0064e0a0` (exit status: 1)",
  'note: test exited abnormally; to see the full output pass --no-capture to the harness.',
  'error: 1 target failed:',
  '    `--test t007_exits`',
);

const ECHOED_PASS = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.19s',
  '     Running tests/dup_ok.rs (target/debug/deps/dup_ok-4893415883e8ea79)',
  '',
  'running 2 tests',
  'test a_honest ... ok',
  'test a_honest ... ok',
  'test b_echo ... ok',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s',
  '',
);

/** Throwaway package roots: the crate's name comes from their Cargo.toml, a glob import from the test file. */
const roots: string[] = [];
function root(cargoToml: string | null, files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-cargo-check-'));
  roots.push(dir);
  if (cargoToml !== null) fs.writeFileSync(path.join(dir, 'Cargo.toml'), cargoToml);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
afterAll(() => {
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true });
});

const MY_CRT = root('[package]\nname = "my-crt"\nversion = "0.1.0"\nedition = "2021"\n', {
  'tests/e0425_scope.rs': 'use my_crt::*;\n#[test]\nfn t() { assert_eq!(missing(1), 1); }\n',
  'tests/conseq2.rs': 'use my_crt::*;\n\n#[test]\nfn t() {}\n',
});
const CRT = root('[package]\nname = "crt"\nversion = "0.1.0"\nedition = "2021"\n');

/** `out` as cargo printed it for `file`, run in `worktree` with `exitCode` (101 unless it says otherwise). */
const classify = (output: string, file: string, worktree = MY_CRT, exitCode: number | null = 101) =>
  classifyCargo(output, { output, exitCode, spawnError: null }, { file, worktree });

describe('countRustAssertions', () => {
  it('counts the assert macros, panics, unwrap_err and should_panic', () => {
    const source = [
      '#[test]',
      'fn a() {',
      '    assert!(ok());',
      '    assert_eq!(add(1, 2), 3);',
      '    assert_ne!(add(1, 2), 4, "not {}", 4);',
      '    debug_assert!(true);',
      '    debug_assert_eq!(1, 1);',
      '    debug_assert_ne!(1, 2);',
      '    assert!(matches!(parse("x"), Err(_)));',
      '    parse("").unwrap_err();',
      '    match x { Some(_) => {}, None => panic!("none") }',
      '    if y { unreachable!() }',
      '}',
      '#[test]',
      '#[should_panic]',
      'fn b() {}',
      '#[test]',
      '#[should_panic(expected = "boom")]',
      'fn c() {}',
    ].join('\n');
    expect(countRustAssertions(source)).toBe(12);
  });

  it('counts nothing in comments or strings, and no other macro or unwrap', () => {
    const source = [
      '// assert!(commented);',
      '/* assert_eq!(1, 1);',
      '   panic!("block") */',
      'fn a() {',
      '    let s = "assert!(in a string) \\" panic!(still)";',
      "    let q = '\"'; // a quote in a char does not open a string: the next line counts",
      '    assert!(s.len() > 0);',
      "    let _ = matches!(q, '\"');",
      '    my_assert!(x); todo!(); unimplemented!(); x.unwrap(); x.expect("e");',
      '    let url = "http://example.com"; assert_eq!(url.len(), 18);',
      '}',
    ].join('\n');
    expect(countRustAssertions(source)).toBe(2);
    expect(countRustAssertions('')).toBe(0);
    // An escaped quote in a char is no string either.
    expect(countRustAssertions('let q = \'\\"\'; assert!(x); let s = "y";')).toBe(1);
  });
});

describe('classifyCargo, the runner itself', () => {
  it('says cargo is missing once, for every file', () => {
    const message = (why: string) =>
      `cargo could not be started (${why}). Install Rust's cargo and put it on the PATH of the Tilth server (on Debian and Ubuntu: \`apt-get install -y cargo\`, or rustup), then check again.`;
    expect(classifyCargo('', { output: '', exitCode: null, spawnError: 'spawn cargo ENOENT' }, { file: 'tests/t001_add.rs', worktree: CRT })).toEqual({
      kind: 'environment',
      message: message('spawn cargo ENOENT'),
      runner: true,
    });
    expect(classify(NO_CARGO, 'tests/t001_add.rs', CRT, 127)).toEqual({ kind: 'environment', message: message('exit code 127'), runner: true });
    expect(classify('', 'tests/t001_add.rs', CRT, 126)).toEqual({ kind: 'environment', message: message('exit code 126'), runner: true });
  });

  it('asks for a Cargo.toml when there is no package, once for every file', () => {
    expect(classify(NO_MANIFEST, 'tests/t001.rs')).toEqual({
      kind: 'environment',
      message: 'cargo found no package for tests/t001.rs: the repository needs a Cargo.toml at its root (`cargo init`), then check again.',
      runner: true,
    });
  });

  it('says a file not directly under tests/ is no test target', () => {
    expect(classify(NO_TARGET, 'tests/sub/nope.rs')).toEqual({
      kind: 'environment',
      message:
        'cargo has no test target for tests/sub/nope.rs: a test file must sit directly under tests/, where cargo builds each one as its own test target (unless Cargo.toml says `autotests = false`, which turns that off).',
    });
  });

  it('asks for cargo fetch when a dependency is not in the cache (the checks run offline)', () => {
    const message = (said: string) =>
      `tests/t001.rs does not build: cargo could not get a dependency (${said}). The checks run offline: run \`cargo fetch\` in the repository so cargo's cache has it, then check again.`;
    expect(classify(NO_SERDE, 'tests/t001.rs')).toEqual({ kind: 'environment', message: message('no matching package named `serde` found') });
    expect(classify(GIT_DEPENDENCY, 'tests/t001.rs')).toEqual({
      kind: 'environment',
      message: message('failed to get `foo` as a dependency of package `dep v0.1.0 (/tmp/cargo-probe-dep)`'),
    });
    expect(classify(LOCK_CREATE, 'tests/t001.rs')).toMatchObject({ kind: 'environment', message: expect.stringContaining('(cannot create the lock file ') });
    expect(classify(LOCK_UPDATE, 'tests/t001.rs')).toMatchObject({ kind: 'environment', message: expect.stringContaining('(cannot update the lock file ') });
  });

  it('passes on any other error of cargo’s own, with where it points, for every file', () => {
    expect(classify(BAD_MANIFEST, 'tests/t001.rs')).toEqual({
      kind: 'environment',
      message:
        'cargo could not run tests/t001.rs: string values must be quoted, expected literal string (Cargo.toml, line 3). Fix that in the repository, then check again.',
      runner: true,
    });
    expect(classify(NO_MANIFEST.replace('could not find', 'did not find'), 'tests/t001.rs')).toEqual({
      kind: 'environment',
      message:
        'cargo could not run tests/t001.rs: did not find `Cargo.toml` in `/tmp/cargo-probe-empty` or any parent directory. Fix that in the repository, then check again.',
      runner: true,
    });
  });
});

describe('classifyCargo, a test file that does not compile', () => {
  it('refuses a syntax error in the test file with its line', () => {
    const message = (file: string, line: number, said: string) =>
      `${file} does not parse: line ${line}: ${said}. The test has a syntax error: fix it in seed review.`;
    expect(classify(SYNTAX, 'tests/syntax.rs')).toEqual({ kind: 'environment', message: message('tests/syntax.rs', 3, 'expected expression, found `;`') });
    expect(classify(UNCLOSED, 'tests/unclosed.rs')).toEqual({
      kind: 'environment',
      message: message('tests/unclosed.rs', 3, 'this file contains an unclosed delimiter'),
    });
    expect(classify(UNEXPECTED_CLOSE, 'tests/unexpected_close.rs')).toEqual({
      kind: 'environment',
      message: message('tests/unexpected_close.rs', 4, 'unexpected closing delimiter: `}`'),
    });
    expect(classify(MISMATCHED_DELIMITER, 'tests/mismatched.rs')).toEqual({
      kind: 'environment',
      message: message('tests/mismatched.rs', 3, 'mismatched closing delimiter: `]`'),
    });
    // The same error in another file than the one checked is that file's, not a syntax error of this one.
    expect(classify(SYNTAX, 'tests/other.rs')).toMatchObject({ kind: 'does_not_load' });
  });

  it('refuses a syntax error elsewhere (the library) as a build that fails for another reason', () => {
    expect(classify(LIB_SYNTAX, 'tests/t001.rs')).toEqual({
      kind: 'does_not_load',
      message: 'tests/t001.rs does not build, for a reason other than the missing work: src/lib.rs:2: error: expected pattern, found `=`',
    });
  });

  it.each([
    ['E0425_CRATE', E0425_CRATE, 'tests/e0425_crate.rs', 'missing'],
    ['E0425_TYPE', E0425_TYPE, 'tests/e0412_type.rs', 'Priority'],
    ['E0422_STRUCT', E0422_STRUCT, 'tests/e0422_struct.rs', 'Priority'],
    ['E0432_ROOT', E0432_ROOT, 'tests/e0432_root.rs', 'missing'],
    ['E0432_MODULE', E0432_MODULE, 'tests/e0432_mod.rs', 'stats'],
    ['E0433_MODULE', E0433_MODULE, 'tests/e0433_mod.rs', 'stats'],
    ['E0599_METHOD', E0599_METHOD, 'tests/e0599_method.rs', 'is_done'],
    ['E0599_ASSOCIATED', E0599_ASSOCIATED, 'tests/e0599_assoc.rs', 'with_priority'],
    ['E0609_FIELD', E0609_FIELD, 'tests/e0609_field.rs', 'priority'],
    ['E0560_FIELD', E0560_FIELD, 'tests/e0560_struct.rs', 'priority'],
    ['MANY_MISSING', MANY_MISSING, 'tests/conseq.rs', 'Priority'],
    ['MANY_MISSING_GLOBBED', MANY_MISSING_GLOBBED, 'tests/conseq2.rs', 'my_macro'],
    ['TWO_IMPORTS', TWO_IMPORTS, 'tests/t001_priority.rs', 'set_priority'],
    ['E0425_SCOPE', E0425_SCOPE, 'tests/e0425_scope.rs', 'missing'],
  ])('is red on a name the crate does not have yet (%s)', (_, output, file, name) => {
    expect(classify(output, file)).toEqual({ kind: 'fails_as_expected', reason: `\`${name}\` is not defined yet` });
  });

  it('is not red when one of the paths a `use` line lacks is another crate’s', () => {
    const mixed = TWO_IMPORTS.replace('`my_crt::Priority`', '`serde::Serialize`');
    expect(classify(mixed, 'tests/t001_priority.rs')).toMatchObject({ kind: 'does_not_load' });
  });

  it('reads "not found in this scope" as the crate’s only when the test imports all of the crate', () => {
    const glob = (use: string) => root('[package]\nname = "my-crt"\n', { 'tests/e0425_scope.rs': `${use}\n#[test]\nfn t() { assert_eq!(missing(1), 1); }\n` });
    const refused = {
      kind: 'does_not_load',
      message:
        'tests/e0425_scope.rs does not build, for a reason other than the missing work: tests/e0425_scope.rs:3: error[E0425]: cannot find function `missing` in this scope',
    };
    expect(classify(E0425_SCOPE, 'tests/e0425_scope.rs', glob('use my_crt::{Todo, *};'))).toMatchObject({ kind: 'fails_as_expected' });
    expect(classify(E0425_SCOPE, 'tests/e0425_scope.rs', glob('use ::my_crt::list::*;'))).toMatchObject({ kind: 'fails_as_expected' });
    expect(classify(E0425_SCOPE, 'tests/e0425_scope.rs', glob('use my_crt::Todo;'))).toEqual(refused);
    expect(classify(E0425_SCOPE, 'tests/e0425_scope.rs', glob('use other::*;'))).toEqual(refused);
    expect(classify(E0425_SCOPE, 'tests/e0425_scope.rs', glob('// use my_crt::*;'))).toEqual(refused);
    expect(classify(E0425_SCOPE, 'tests/e0425_scope.rs', root('[package]\nname = "my-crt"\n'))).toEqual(refused);
  });

  it('refuses a name missing from another crate or module than the package’s', () => {
    expect(classify(STD_MISSING, 'tests/std_missing.rs')).toEqual({
      kind: 'does_not_load',
      message:
        'tests/std_missing.rs does not build, for a reason other than the missing work: tests/std_missing.rs:3: error[E0425]: cannot find function `nothing` in module `std::fs`',
    });
    expect(classify(STD_IMPORT, 'tests/std_import.rs')).toMatchObject({
      kind: 'does_not_load',
      message: expect.stringContaining(': tests/std_import.rs:1: error[E0432]: unresolved import `std::collections::Nothing`'),
    });
    // The same missing names, in a package whose crate is another.
    expect(classify(E0425_CRATE, 'tests/e0425_crate.rs', CRT)).toMatchObject({ kind: 'does_not_load' });
    expect(classify(E0432_ROOT, 'tests/e0432_root.rs', CRT)).toMatchObject({ kind: 'does_not_load' });
  });

  it('refuses a test with a missing name and another error, with the other one', () => {
    expect(classify(MISSING_AND_MISMATCH, 'tests/t004_broken.rs', CRT)).toEqual({
      kind: 'does_not_load',
      message: 'tests/t004_broken.rs does not build, for a reason other than the missing work: tests/t004_broken.rs:5: error[E0308]: mismatched types',
    });
  });

  it('refuses a type mismatch or a wrong argument count, though the task may change a signature', () => {
    expect(classify(E0308, 'tests/e0308.rs')).toEqual({
      kind: 'does_not_load',
      message: 'tests/e0308.rs does not build, for a reason other than the missing work: tests/e0308.rs:2: error[E0308]: mismatched types',
    });
    expect(classify(E0061, 'tests/e0061.rs')).toMatchObject({
      kind: 'does_not_load',
      message: expect.stringContaining(': tests/e0061.rs:2: error[E0061]: this function takes 2 arguments but 1 argument was supplied'),
    });
  });

  it('does not take a library that does not compile for the missing work, whatever its error', () => {
    expect(classify(LIB_BROKEN, 'tests/t001.rs', root('[package]\nname = "lbad"\n'))).toEqual({
      kind: 'does_not_load',
      message:
        'tests/t001.rs does not build, for a reason other than the missing work: src/lib.rs:2: error[E0599]: no method named `nothing` found for type `i32` in the current scope',
    });
  });

  it('refuses a crate the package does not depend on, naming the package’s own', () => {
    const message = (name: string, own: string) =>
      `tests/x.rs does not build: it uses the crate \`${name}\`, which the package does not depend on and the checks cannot fetch (they run offline). Use the standard library and the crates Cargo.toml already lists${own}.`;
    expect(classify(SERDE_JSON, 'tests/x.rs')).toEqual({ kind: 'does_not_load', message: message('serde_json', " (the package's own crate is `my_crt`)") });
    expect(classify(SERDE_IMPORT, 'tests/x.rs')).toEqual({ kind: 'does_not_load', message: message('serde', " (the package's own crate is `my_crt`)") });
    expect(classify(EXTERN_RAND, 'tests/x.rs', root(null))).toEqual({ kind: 'does_not_load', message: message('rand', '') });
  });

  it('is red when the package has no library yet for the test to use', () => {
    expect(classify(NO_LIBRARY, 'tests/t001_run.rs', root('[package]\nname = "bin-only"\n'))).toEqual({
      kind: 'fails_as_expected',
      reason: 'the library crate `bin_only` does not exist yet',
    });
  });
});

describe('classifyCargo, a run', () => {
  it('passes when the file’s tests ran and passed', () => {
    expect(classify(PASSES, 'tests/t001_add.rs', CRT, 0)).toEqual({ kind: 'passes' });
  });

  it('says so when cargo ran no test from the file', () => {
    const none = (file: string) => ({
      kind: 'does_not_load',
      message: `cargo ran no test from ${file}: tests are functions marked #[test] (\`#[test] fn adds() { … }\`), in a file directly under tests/.`,
    });
    expect(classify(NO_TESTS, 'tests/zero.rs', MY_CRT, 0)).toEqual(none('tests/zero.rs'));
    expect(classify(EXACT_NONE, 'tests/t001_add.rs', CRT, 0)).toEqual(none('tests/t001_add.rs'));
    // Another file's tests are not this one's.
    expect(classify(PASSES, 'tests/t002.rs', CRT, 0)).toEqual(none('tests/t002.rs'));
  });

  it('does not pass a run that exited 0 when the file’s account cannot be trusted', () => {
    expect(classify(EXIT_0, 'tests/t003_exit.rs', CRT, 0)).toEqual({
      kind: 'does_not_load',
      message:
        'cargo exited 0, but its output for tests/t003_exit.rs cannot be trusted: The test binary of tests/t003_exit.rs ended before it reported its result: something ended the process inside a test (an abort, a crash, `std::process::exit`), or libtest does not run it (`harness = false`).',
    });
    expect(classify(ECHOED_PASS, 'tests/dup_ok.rs', CRT, 0)).toEqual({
      kind: 'does_not_load',
      message: expect.stringMatching(
        /^cargo exited 0, but its output for tests\/dup_ok\.rs cannot be trusted: The runner's account of tests\/dup_ok\.rs does not add up/,
      ),
    });
  });

  it('is red on a failing test, and on a test that ended the binary early', () => {
    expect(classify(FAILS, 'tests/t001_add.rs', CRT)).toEqual({ kind: 'fails_as_expected', reason: 'a test failed' });
    expect(classify(ABORT, 'tests/t002_abort.rs', CRT)).toEqual({
      kind: 'fails_as_expected',
      reason: 'a test ended the test binary early (signal: 6, SIGABRT: process abort signal)',
    });
    expect(classify(EXIT_101, 'tests/t008_exit101.rs', CRT)).toEqual({ kind: 'fails_as_expected', reason: 'a test ended the test binary early' });
    // A test that failed before another ended the binary is the reason given.
    expect(classify(EXIT_1_MID_RUN, 'tests/t007_exits.rs', CRT)).toEqual({ kind: 'fails_as_expected', reason: 'a test failed' });
    // Its one test passed, but the binary did not exit successfully after its summary.
    expect(classify(SUMMARY_THEN_EXIT_1, 'tests/forged_exit1.rs', CRT)).toEqual({
      kind: 'fails_as_expected',
      reason: 'a test ended the test binary early (exit status: 1)',
    });
    expect(classify('', 'tests/t001_add.rs', CRT)).toEqual({ kind: 'fails_as_expected', reason: 'a test failed' });
  });
});
