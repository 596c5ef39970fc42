/**
 * `cargo test`'s output read case by case. Every fixture is what cargo 1.95 printed — its stderr
 * and the test binaries' stdout in one file, as Tilth runs it, with RUST_BACKTRACE=0 — for small
 * std-only crates, some of whose tests forge libtest's lines on purpose. cargo-report.int.test.ts
 * runs the real toolchain.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cargoErrors, cargoText, crateName, parseCargoTest } from './cargo-report.ts';

const out = (...lines: string[]) => `${lines.join('\n')}\n`;

const ONE_FILE = out(
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

const COLOURED = out(
  '\u001b[1m\u001b[92m    Finished\u001b[0m `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '\u001b[1m\u001b[92m     Running\u001b[0m tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)',
  '',
  'running 1 test',
  'test inner::deep ... \u001b[32mok\u001b(B\u001b[m',
  '',
  'test result: \u001b[32mok\u001b(B\u001b[m. 1 passed; 0 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s',
  '',
);

const WHOLE_CRATE = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-a)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 2.62s',
  '     Running unittests src/lib.rs (target/debug/deps/crt-bd4320a1ed4935a6)',
  '',
  'running 1 test',
  'test tests::unit_ok ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  '     Running tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)',
  '',
  'running 5 tests',
  'test fails ... FAILED',
  'test inner::deep ... ok',
  'test skipped ... ignored',
  'test skipped_reason ... ignored, not yet',
  'test adds ... ok',
  '',
  'failures:',
  '',
  '---- fails stdout ----',
  'some output',
  '',
  "thread 'fails' (18979) panicked at tests/t001_add.rs:11:5:",
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
  '     Running tests/t002_abort.rs (target/debug/deps/t002_abort-c94c35a7fd2e1bac)',
  '',
  'running 2 tests',
  'error: test failed, to rerun pass `--test t002_abort`',
  '',
  'Caused by:',
  "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t002_abort-c94c35a7fd2e1bac` (signal: 6, SIGABRT: process abort signal)",
  '     Running tests/t003_exit.rs (target/debug/deps/t003_exit-9ee29308477411b5)',
  '',
  'running 1 test',
  '   Doc-tests crt',
  '',
  'running 2 tests',
  'test src/lib.rs - add (line 3) ... ok',
  'test src/lib.rs - sub (line 10) ... FAILED',
  '',
  'failures:',
  '',
  '---- src/lib.rs - sub (line 10) stdout ----',
  'Test executable failed (exit status: 101).',
  '',
  'stderr:',
  '',
  "thread 'main' (19077) panicked at src/lib.rs:5:1:",
  'assertion `left == right` failed',
  '  left: 3',
  ' right: 4',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  '',
  'failures:',
  '    src/lib.rs - sub (line 10)',
  '',
  'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.69s',
  '',
  'error: doctest failed, to rerun pass `--doc`',
  'error: 3 targets failed:',
  '    `--test t001_add`',
  '    `--test t002_abort`',
  '    `--doc`',
);

const EXACT_ONE = out(
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

const LONG_FAILURE = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.86s',
  '     Running tests/long.rs (target/debug/deps/long-f10a6d9b5ea561fc)',
  '',
  'running 1 test',
  'test chatty ... FAILED',
  '',
  'failures:',
  '',
  '---- chatty stdout ----',
  'line 0',
  'line 1',
  'line 2',
  'line 3',
  'line 4',
  'line 5',
  'line 6',
  'line 7',
  'line 8',
  'line 9',
  'line 10',
  'line 11',
  'line 12',
  'line 13',
  'line 14',
  'line 15',
  'line 16',
  'line 17',
  'line 18',
  'line 19',
  'line 20',
  'line 21',
  'line 22',
  'line 23',
  'line 24',
  'line 25',
  'line 26',
  'line 27',
  'line 28',
  'line 29',
  'line 30',
  'line 31',
  'line 32',
  'line 33',
  'line 34',
  'line 35',
  'line 36',
  'line 37',
  'line 38',
  'line 39',
  'line 40',
  'line 41',
  'line 42',
  'line 43',
  'line 44',
  'line 45',
  'line 46',
  'line 47',
  'line 48',
  'line 49',
  'line 50',
  'line 51',
  'line 52',
  'line 53',
  'line 54',
  'line 55',
  'line 56',
  'line 57',
  'line 58',
  'line 59',
  '',
  "thread 'chatty' (2129) panicked at tests/long.rs:6:5:",
  'after sixty lines',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    chatty',
  '',
  'test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'error: test failed, to rerun pass `--test long`',
  'error: 1 target failed:',
  '    `--test long`',
);

const ONE_TARGET_BROKEN = out(
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

const WARNING_THEN_ERROR = out(
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

const TWO_TARGETS_BROKEN = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  'error[E0425]: cannot find function `gone` in crate `crt`',
  ' --> tests/common/mod.rs:2:10',
  '  |',
  '2 |     crt::gone()',
  '  |          ^^^^ not found in `crt`',
  '',
  'error[E0425]: cannot find function `nope` in crate `crt`',
  ' --> tests/t009_dir/main.rs:3:21',
  '  |',
  '3 |     assert_eq!(crt::nope(), 1);',
  '  |                     ^^^^ not found in `crt`',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'error: could not compile `crt` (test "t009_dir") due to 1 previous error',
  'warning: build failed, waiting for other jobs to finish...',
  'error: could not compile `crt` (test "t010_common") due to 1 previous error',
);

const TWO_TARGETS_INTERLEAVED = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  'error[E0425]: cannot find function `vanished` in crate `crt`',
  ' --> tests/t012_b.rs:3:21',
  '  |',
  '3 |     assert_eq!(crt::vanished(), 1);',
  '  |                     ^^^^^^^^ not found in `crt`',
  '',
  'error[E0425]: cannot find function `lost` in crate `crt`',
  ' --> tests/shared/mod.rs:2:10',
  '  |',
  '2 |     crt::lost()',
  '  |          ^^^^ not found in `crt`',
  '',
  'error[E0425]: cannot find function `absent` in crate `crt`',
  ' --> tests/t011_a.rs:5:35',
  '  |',
  '5 |     assert_eq!(shared::h() + crt::absent(), 1);',
  '  |                                   ^^^^^^ not found in `crt`',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'error: could not compile `crt` (test "t011_a") due to 2 previous errors',
  'warning: build failed, waiting for other jobs to finish...',
  'error: could not compile `crt` (test "t012_b") due to 1 previous error',
);

const DIR_TARGET = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  'error[E0425]: cannot find function `nope` in crate `crt`',
  ' --> tests/t009_dir/main.rs:3:21',
  '  |',
  '3 |     assert_eq!(crt::nope(), 1);',
  '  |                     ^^^^ not found in `crt`',
  '',
  'For more information about this error, try `rustc --explain E0425`.',
  'error: could not compile `crt` (test "t009_dir") due to 1 previous error',
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

const LIB_BROKEN_WHOLE = out(
  '   Compiling lbad v0.1.0 (/tmp/cargo-probe-lib)',
  'error[E0599]: no method named `nothing` found for type `i32` in the current scope',
  ' --> src/lib.rs:2:10',
  '  |',
  '2 |     1i32.nothing()',
  '  |          ^^^^^^^ method not found in `i32`',
  '',
  'For more information about this error, try `rustc --explain E0599`.',
  'error: could not compile `lbad` (lib) due to 1 previous error',
  'warning: build failed, waiting for other jobs to finish...',
  'error: could not compile `lbad` (lib test) due to 1 previous error',
);

const NO_MANIFEST = out('error: could not find `Cargo.toml` in `/tmp/cargo-probe-empty` or any parent directory');

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

const STACK_OVERFLOW = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.05s',
  '     Running tests/t007_exits.rs (target/debug/deps/t007_exits-10e0d6fa0064e0a0)',
  '',
  'running 1 test',
  '',
  "thread 'overflow' (3843) has overflowed its stack",
  'fatal runtime error: stack overflow, aborting',
  'error: test failed, to rerun pass `--test t007_exits`',
  '',
  'Caused by:',
  "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t007_exits-10e0d6fa0064e0a0 --exact overflow` (signal: 6, SIGABRT: process abort signal)",
  'error: 1 target failed:',
  '    `--test t007_exits`',
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

const PRINTED_TWICE = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t005_forge.rs (target/debug/deps/t005_forge-61c275bbf97b2beb)',
  '',
  'running 3 tests',
  'test panics - should panic ... ok',
  'test real_fail ... ok',
  'test real_fail ... FAILED',
  'test honest ... ok',
  '',
  'failures:',
  '',
  '---- real_fail stdout ----',
  '',
  "thread 'real_fail' (640) panicked at tests/t005_forge.rs:6:5:",
  'boom',
  '',
  '',
  'failures:',
  '    real_fail',
  '',
  'test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'error: test failed, to rerun pass `--test t005_forge`',
  'error: 1 target failed:',
  '    `--test t005_forge`',
);

const GHOST = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.32s',
  '     Running tests/ghost.rs (target/debug/deps/ghost-0e27f89f5bc54e38)',
  '',
  'running 1 test',
  'test ghost ... ok',
  'test real_fail ... FAILED',
  '',
  'failures:',
  '',
  '---- real_fail stdout ----',
  '',
  "thread 'real_fail' (32286) panicked at tests/ghost.rs:6:5:",
  'assertion `left == right` failed',
  '  left: 2',
  ' right: 3',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    real_fail',
  '',
  'test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'error: test failed, to rerun pass `--test ghost`',
  'error: 1 target failed:',
  '    `--test ghost`',
);

const SECOND_SUMMARY = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.79s',
  '     Running tests/summary.rs (target/debug/deps/summary-3d99650569331486)',
  '',
  'running 2 tests',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'test b_forger ... ok',
  'test a_slow_fail ... FAILED',
  '',
  'failures:',
  '',
  '---- a_slow_fail stdout ----',
  '',
  "thread 'a_slow_fail' (32359) panicked at tests/summary.rs:6:5:",
  'really failed',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    a_slow_fail',
  '',
  'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.30s',
  '',
  'error: test failed, to rerun pass `--test summary`',
  'error: 1 target failed:',
  '    `--test summary`',
);

const HIDDEN_RESULTS = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.84s',
  '     Running tests/hidden.rs (target/debug/deps/hidden-1f62e7cdfc387980)',
  '',
  'running 2 tests',
  '',
  'failures:',
  '',
  'test a_forger ... ok',
  'test b_slow_fail ... FAILED',
  '',
  'failures:',
  '',
  '---- b_slow_fail stdout ----',
  '',
  "thread 'b_slow_fail' (32521) panicked at tests/hidden.rs:11:5:",
  'hidden',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    b_slow_fail',
  '',
  'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.30s',
  '',
  'error: test failed, to rerun pass `--test hidden`',
  'error: 1 target failed:',
  '    `--test hidden`',
);

const CAPTURED_LOOKALIKES = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.62s',
  '     Running tests/captured.rs (target/debug/deps/captured-5a9ef42fefe0207c)',
  '',
  'running 2 tests',
  'test fine ... ok',
  'test prints_lookalikes ... FAILED',
  '',
  'failures:',
  '',
  '---- prints_lookalikes stdout ----',
  'test other ... ok',
  'test result: ok. 9 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  "thread 'prints_lookalikes' (32446) panicked at tests/captured.rs:5:5:",
  'the real failure',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    prints_lookalikes',
  '',
  'test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'error: test failed, to rerun pass `--test captured`',
  'error: 1 target failed:',
  '    `--test captured`',
);

const FORGED_THEN_EXIT_0 = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.03s',
  '     Running tests/t006_forge_exit.rs (target/debug/deps/t006_forge_exit-ce56f942a9ac88d2)',
  '',
  'running 2 tests',
  'test a_fails ... ok',
  'test b_forger ... ok',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
);

const SUMMARY_PRINTED_TWICE = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.13s',
  '     Running tests/twice_same.rs (target/debug/deps/twice_same-d0d4bfac202c928a)',
  '',
  'running 2 tests',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
  'test a_fine ... ok',
  'test b_forger ... ok',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
);

const RUNNING_PRINTED_TWICE = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.46s',
  '     Running tests/running_twice.rs (target/debug/deps/running_twice-1d186dd324827161)',
  '',
  'running 2 tests',
  'running 2 tests',
  'test a_fine ... ok',
  'test b_forger ... ok',
  '',
  'test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
);

const OWN_MAIN = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.29s',
  '     Running tests/own_main.rs (target/debug/deps/own_main-33535560f341cd2a)',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
);

const PARTIAL_LOOKALIKES = out(
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.47s',
  '     Running tests/lookalike.rs (target/debug/deps/lookalike-a27643b976aa1707)',
  '',
  'running 1 test',
  'loading ... ok',
  'test x ... fine',
  'test writes ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
);

const BAD_MANIFEST = out('error: string values must be quoted, expected literal string', ' --> Cargo.toml:3:11', '  |', '3 | version = ', '  |           ^');

const LOGFILE = out(
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.02s',
  '     Running tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)',
  'warning: `--logfile` is deprecated',
  'running 5 tests',
  'test adds ... ok',
  'test inner::deep ... ok',
  'test skipped ... ignored',
  'test skipped_reason ... ignored, not yet',
  'test fails ... FAILED',
  '',
  'failures:',
  '',
  '---- fails stdout ----',
  'some output',
  '',
  "thread 'fails' (748) panicked at tests/t001_add.rs:11:5:",
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

const BLOCKING = out(
  '    Blocking waiting for file lock on artifact directory',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.13s',
  '     Running tests/ghost.rs (target/debug/deps/ghost-0e27f89f5bc54e38)',
  '',
  'running 1 test',
  'test ghost ... ok',
  'test real_fail ... FAILED',
  '',
  'failures:',
  '',
  '---- real_fail stdout ----',
  '',
  "thread 'real_fail' (1877) panicked at tests/ghost.rs:6:5:",
  'assertion `left == right` failed',
  '  left: 2',
  ' right: 3',
  'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  '',
  '',
  'failures:',
  '    real_fail',
  '',
  'test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s',
  '',
  'error: test failed, to rerun pass `--test ghost`',
  'error: 1 target failed:',
  '    `--test ghost`',
);

const LOCKING = out(
  '     Locking 1 package to latest compatible version',
  '   Compiling crt v0.1.0 (/tmp/cargo-probe-c)',
  '   Compiling pp v0.1.0 (/tmp/cargo-probe-path)',
  '    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.92s',
  '     Running tests/t001.rs (target/debug/deps/t001-f29a976f284bcc26)',
  '',
  'running 1 test',
  'test three ... ok',
  '',
  'test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
  '',
);

const FAILS_MESSAGE = (thread: number) =>
  [
    'some output',
    '',
    `thread 'fails' (${thread}) panicked at tests/t001_add.rs:11:5:`,
    'assertion `left == right` failed: two and two',
    '  left: 4',
    ' right: 5',
    'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
  ].join('\n');

const passed = (file: string, name: string) => ({ file, name, fullTitle: name, outcome: 'passed', message: '' });
const skipped = (file: string, name: string) => ({ file, name, fullTitle: name, outcome: 'skipped', message: '' });
const failed = (file: string, name: string, message: string) => ({ file, name, fullTitle: name, outcome: 'failed', message });

describe('parseCargoTest', () => {
  it('reads each result line of a test binary as a case of its file: a pass, a failure with its captured output, ignored tests with and without a reason, a nested module by its full name', () => {
    const t001 = 'tests/t001_add.rs';
    expect(parseCargoTest(ONE_FILE)).toEqual({
      cases: [
        failed(t001, 'fails', FAILS_MESSAGE(706)),
        passed(t001, 'adds'),
        skipped(t001, 'skipped'),
        skipped(t001, 'skipped_reason'),
        passed(t001, 'inner::deep'),
      ],
      loadErrors: [],
    });
  });

  it('reads a whole-crate run: the unit tests under src/lib.rs, each binary under its file, no doc-test, and the binaries that ended early as load errors', () => {
    const t001 = 'tests/t001_add.rs';
    expect(parseCargoTest(WHOLE_CRATE)).toEqual({
      cases: [
        passed('src/lib.rs', 'tests::unit_ok'),
        failed(t001, 'fails', FAILS_MESSAGE(18979)),
        passed(t001, 'inner::deep'),
        skipped(t001, 'skipped'),
        skipped(t001, 'skipped_reason'),
        passed(t001, 'adds'),
      ],
      loadErrors: [
        {
          file: 'tests/t002_abort.rs',
          message: [
            'The test binary of tests/t002_abort.rs ended before it reported its result: something ended the process inside a test (an abort, a crash, `std::process::exit`), or libtest does not run it (`harness = false`).',
            'error: test failed, to rerun pass `--test t002_abort`',
            'Caused by:',
            "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t002_abort-c94c35a7fd2e1bac` (signal: 6, SIGABRT: process abort signal)",
          ].join('\n'),
        },
        {
          file: 'tests/t003_exit.rs',
          message:
            'The test binary of tests/t003_exit.rs ended before it reported its result: something ended the process inside a test (an abort, a crash, `std::process::exit`), or libtest does not run it (`harness = false`).',
        },
      ],
    });
  });

  it('reads terminal colours away, as cargo and libtest print them when told to', () => {
    expect(parseCargoTest(COLOURED)).toEqual({ cases: [passed('tests/t001_add.rs', 'inner::deep')], loadErrors: [] });
  });

  it('reads the one case an --exact name ran, and none, with no error, when the name matched nothing', () => {
    expect(parseCargoTest(EXACT_ONE)).toEqual({ cases: [passed('tests/t001_add.rs', 'inner::deep')], loadErrors: [] });
    expect(parseCargoTest(EXACT_NONE)).toEqual({ cases: [], loadErrors: [] });
    expect(parseCargoTest('')).toEqual({ cases: [], loadErrors: [] });
  });

  it('keeps the first 40 lines of a long failure', () => {
    const [chatty] = parseCargoTest(LONG_FAILURE).cases;
    expect(chatty).toMatchObject({ name: 'chatty', outcome: 'failed' });
    expect(chatty!.message.split('\n')).toEqual(Array.from({ length: 40 }, (_, i) => `line ${i}`));
  });
});

describe('parseCargoTest, a build that failed', () => {
  it('makes a load error of the test target with its error blocks and not cargo’s notes; nothing ran, not even the target that compiled', () => {
    expect(parseCargoTest(ONE_TARGET_BROKEN)).toEqual({
      cases: [],
      loadErrors: [
        {
          file: 'tests/t004_broken.rs',
          message: [
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
          ].join('\n'),
        },
      ],
    });
  });

  it('leaves the warnings out', () => {
    expect(parseCargoTest(WARNING_THEN_ERROR).loadErrors).toEqual([
      {
        file: 'tests/e0425_scope.rs',
        message: [
          'error[E0425]: cannot find function `missing` in this scope',
          ' --> tests/e0425_scope.rs:3:21',
          '  |',
          '3 | fn t() { assert_eq!(missing(1), 1); }',
          '  |                     ^^^^^^^ not found in this scope',
        ].join('\n'),
      },
    ]);
  });

  it('gives each of two targets that failed together its own errors, though cargo printed both before either said it failed', () => {
    expect(parseCargoTest(TWO_TARGETS_BROKEN).loadErrors).toEqual([
      {
        file: 'tests/t009_dir/main.rs',
        message: [
          'error[E0425]: cannot find function `nope` in crate `crt`',
          ' --> tests/t009_dir/main.rs:3:21',
          '  |',
          '3 |     assert_eq!(crt::nope(), 1);',
          '  |                     ^^^^ not found in `crt`',
        ].join('\n'),
      },
      {
        // The error is in the module the target includes; what did not load is the target.
        file: 'tests/t010_common.rs',
        message: [
          'error[E0425]: cannot find function `gone` in crate `crt`',
          ' --> tests/common/mod.rs:2:10',
          '  |',
          '2 |     crt::gone()',
          '  |          ^^^^ not found in `crt`',
        ].join('\n'),
      },
    ]);
    expect(parseCargoTest(DIR_TARGET).loadErrors.map((e) => e.file)).toEqual(['tests/t009_dir/main.rs']);
    // The first line to come takes its own file's error, then one in no other target's file.
    expect(parseCargoTest(TWO_TARGETS_INTERLEAVED).loadErrors.map((e) => [e.file, e.message.match(/`\w+` in crate/g)])).toEqual([
      ['tests/t011_a.rs', ['`lost` in crate', '`absent` in crate']],
      ['tests/t012_b.rs', ['`vanished` in crate']],
    ]);
  });

  it('makes a library that does not compile a load error of every file, and a target failing on errors already shown one of its own line', () => {
    const libError = [
      'error[E0599]: no method named `nothing` found for type `i32` in the current scope',
      ' --> src/lib.rs:2:10',
      '  |',
      '2 |     1i32.nothing()',
      '  |          ^^^^^^^ method not found in `i32`',
    ].join('\n');
    expect(parseCargoTest(LIB_BROKEN)).toEqual({ cases: [], loadErrors: [{ file: null, message: libError }] });
    expect(parseCargoTest(LIB_BROKEN_WHOLE).loadErrors).toEqual([
      { file: null, message: libError },
      { file: null, message: 'error: could not compile `lbad` (lib test) due to 1 previous error' },
    ]);
  });

  it('makes cargo’s own error a load error of no file, with its causes and help', () => {
    expect(parseCargoTest(NO_MANIFEST)).toEqual({
      cases: [],
      loadErrors: [{ file: null, message: 'error: could not find `Cargo.toml` in `/tmp/cargo-probe-empty` or any parent directory' }],
    });
    expect(parseCargoTest(GIT_DEPENDENCY).loadErrors).toEqual([
      {
        file: null,
        message: [
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
        ].join('\n'),
      },
    ]);
    expect(parseCargoTest(NO_TARGET).loadErrors).toEqual([{ file: null, message: NO_TARGET.trim() }]);
    // Trailing spaces (`version = `) are not kept.
    expect(parseCargoTest(BAD_MANIFEST).loadErrors).toEqual([
      { file: null, message: 'error: string values must be quoted, expected literal string\n --> Cargo.toml:3:11\n  |\n3 | version =\n  |           ^' },
    ]);
  });
});

describe('parseCargoTest, a test binary that ended early', () => {
  const early = (file: string) =>
    `The test binary of ${file} ended before it reported its result: something ended the process inside a test (an abort, a crash, \`std::process::exit\`), or libtest does not run it (\`harness = false\`).`;

  it('makes an abort or a stack overflow a load error of the file, with what the binary and cargo said', () => {
    expect(parseCargoTest(STACK_OVERFLOW)).toEqual({
      cases: [],
      loadErrors: [
        {
          file: 'tests/t007_exits.rs',
          message: [
            early('tests/t007_exits.rs'),
            "thread 'overflow' (3843) has overflowed its stack",
            'fatal runtime error: stack overflow, aborting',
            'error: test failed, to rerun pass `--test t007_exits`',
            'Caused by:',
            "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t007_exits-10e0d6fa0064e0a0 --exact overflow` (signal: 6, SIGABRT: process abort signal)",
          ].join('\n'),
        },
      ],
    });
    expect(parseCargoTest(ABORT).loadErrors).toEqual([
      { file: 'tests/t002_abort.rs', message: expect.stringMatching(/^The test binary of .*\nerror: test failed.*\nCaused by:\n.*SIGABRT/) },
    ]);
  });

  it('keeps the cases that reported before a test ended the process, and invents none', () => {
    const file = 'tests/t007_exits.rs';
    expect(parseCargoTest(EXIT_1_MID_RUN)).toEqual({
      cases: [passed(file, 'fine'), failed(file, 'no_panic', '')],
      loadErrors: [
        {
          file,
          message: [
            early(file),
            'error: test failed, to rerun pass `--test t007_exits`',
            'Caused by:',
            "  process didn't exit successfully: `/tmp/cargo-probe-a/target/debug/deps/t007_exits-10e0d6fa0064e0a0` (exit status: 1)",
            'note: test exited abnormally; to see the full output pass --no-capture to the harness.',
          ].join('\n'),
        },
      ],
    });
  });

  it('reads an exit inside a test as ending early whatever its code, even 0, which cargo counts as success', () => {
    expect(parseCargoTest(EXIT_101)).toEqual({
      cases: [],
      loadErrors: [{ file: 'tests/t008_exit101.rs', message: `${early('tests/t008_exit101.rs')}\nerror: test failed, to rerun pass \`--test t008_exit101\`` }],
    });
    expect(parseCargoTest(EXIT_0)).toEqual({ cases: [], loadErrors: [{ file: 'tests/t003_exit.rs', message: early('tests/t003_exit.rs') }] });
  });

  it('makes a binary that reported its result and then did not exit successfully a load error', () => {
    expect(parseCargoTest(SUMMARY_THEN_EXIT_1)).toEqual({
      cases: [passed('tests/forged_exit1.rs', 'forger')],
      loadErrors: [
        {
          file: 'tests/forged_exit1.rs',
          message: [
            'The test binary of tests/forged_exit1.rs reported its result, then did not exit successfully.',
            'error: test failed, to rerun pass `--test forged_exit1`',
            'Caused by:',
            "  process didn't exit successfully: `/tmp/cargo-probe-c/target/debug/deps/forged_exit1-7921b64c66e45f20` (exit status: 1)",
            'note: test exited abnormally; to see the full output pass --no-capture to the harness.',
          ].join('\n'),
        },
      ],
    });
  });
});

describe('parseCargoTest, lines the code under test wrote itself', () => {
  const notAddingUp = (file: string, account: string) =>
    `The runner's account of ${file} does not add up: ${account}. Something in the run wrote lines like libtest's to the output, so its results cannot be trusted.`;

  it('fails a case whose result was printed twice, and says the account does not add up', () => {
    const file = 'tests/t005_forge.rs';
    expect(parseCargoTest(PRINTED_TWICE)).toEqual({
      cases: [
        passed(file, 'panics'),
        failed(
          file,
          'real_fail',
          'The result of real_fail was printed 2 times (passed, failed): something in the run wrote to the test output, so none of them can be trusted.',
        ),
        passed(file, 'honest'),
      ],
      loadErrors: [
        {
          file,
          message: `${notAddingUp(file, '4 result lines (3 passed, 1 failed, 0 ignored) under "running 3", and its summary says 2 passed, 1 failed, 0 ignored')}\nerror: test failed, to rerun pass \`--test t005_forge\``,
        },
      ],
    });
  });

  it('says the account does not add up when a result line names a test that is not there', () => {
    const report = parseCargoTest(GHOST);
    expect(report.cases.map((c) => [c.name, c.outcome])).toEqual([
      ['ghost', 'passed'],
      ['real_fail', 'failed'],
    ]);
    expect(report.loadErrors).toEqual([
      {
        file: 'tests/ghost.rs',
        message: `${notAddingUp('tests/ghost.rs', '2 result lines (1 passed, 1 failed, 0 ignored) under "running 1", and its summary says 0 passed, 1 failed, 0 ignored')}\nerror: test failed, to rerun pass \`--test ghost\``,
      },
    ]);
  });

  it('says so for a second summary, and still reads the results after the forged one', () => {
    const report = parseCargoTest(SECOND_SUMMARY);
    expect(report.cases.map((c) => [c.name, c.outcome])).toEqual([
      ['b_forger', 'passed'],
      ['a_slow_fail', 'failed'],
    ]);
    expect(report.cases[1]!.message).toMatch(/^thread 'a_slow_fail' \(32359\) panicked at tests\/summary\.rs:6:5:\nreally failed\n/);
    expect(report.loadErrors).toEqual([
      {
        file: 'tests/summary.rs',
        message: `${notAddingUp('tests/summary.rs', '2 result lines (1 passed, 1 failed, 0 ignored) under "running 2", and 2 summaries say 2 passed, 0 failed, 0 ignored; 1 passed, 1 failed, 0 ignored')}\nerror: test failed, to rerun pass \`--test summary\``,
      },
    ]);
  });

  it('says so when a forged "failures:" heading hid the real results', () => {
    expect(parseCargoTest(HIDDEN_RESULTS)).toEqual({
      cases: [],
      loadErrors: [
        {
          file: 'tests/hidden.rs',
          message: `${notAddingUp('tests/hidden.rs', '0 result lines (0 passed, 0 failed, 0 ignored) under "running 2", and its summary says 1 passed, 1 failed, 0 ignored')}\nerror: test failed, to rerun pass \`--test hidden\``,
        },
      ],
    });
  });

  it('says so for a second summary or "running" line that repeats the real one', () => {
    expect(parseCargoTest(SUMMARY_PRINTED_TWICE)).toEqual({
      cases: [passed('tests/twice_same.rs', 'a_fine'), passed('tests/twice_same.rs', 'b_forger')],
      loadErrors: [
        {
          file: 'tests/twice_same.rs',
          message: notAddingUp(
            'tests/twice_same.rs',
            '2 result lines (2 passed, 0 failed, 0 ignored) under "running 2", and 2 summaries say 2 passed, 0 failed, 0 ignored; 2 passed, 0 failed, 0 ignored',
          ),
        },
      ],
    });
    expect(parseCargoTest(RUNNING_PRINTED_TWICE).loadErrors).toEqual([
      {
        file: 'tests/running_twice.rs',
        message: notAddingUp(
          'tests/running_twice.rs',
          '2 result lines (2 passed, 0 failed, 0 ignored) under "running 2" and "running 2", and its summary says 2 passed, 0 failed, 0 ignored',
        ),
      },
    ]);
  });

  it('says so for a target with its own main (harness = false) that prints a summary and no run', () => {
    expect(parseCargoTest(OWN_MAIN)).toEqual({
      cases: [],
      loadErrors: [
        {
          file: 'tests/own_main.rs',
          message: notAddingUp(
            'tests/own_main.rs',
            '0 result lines (0 passed, 0 failed, 0 ignored) under no "running" line, and its summary says 1 passed, 0 failed, 0 ignored',
          ),
        },
      ],
    });
  });

  it('reads no result from a line that only partly looks like one, and no trouble either', () => {
    expect(parseCargoTest(PARTIAL_LOOKALIKES)).toEqual({ cases: [passed('tests/lookalike.rs', 'writes')], loadErrors: [] });
  });

  it('reads look-alike lines in a failing test’s captured output as its message, not as results', () => {
    const file = 'tests/captured.rs';
    expect(parseCargoTest(CAPTURED_LOOKALIKES)).toEqual({
      cases: [
        passed(file, 'fine'),
        failed(
          file,
          'prints_lookalikes',
          [
            'test other ... ok',
            'test result: ok. 9 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s',
            '',
            "thread 'prints_lookalikes' (32446) panicked at tests/captured.rs:5:5:",
            'the real failure',
            'note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace',
          ].join('\n'),
        ),
      ],
      loadErrors: [],
    });
  });

  it('is fooled by forged results and summary when the forger then exits 0 before libtest speaks (the limit the module states)', () => {
    // a_fails really fails: `assert!(false)` after a sleep that b_forger's exit(0) cut short.
    expect(parseCargoTest(FORGED_THEN_EXIT_0)).toEqual({
      cases: [passed('tests/t006_forge_exit.rs', 'a_fails'), passed('tests/t006_forge_exit.rs', 'b_forger')],
      loadErrors: [],
    });
  });
});

describe('cargoErrors', () => {
  it('lists each error of the build with where it points and the target it is of; cargo’s own have none', () => {
    expect(cargoErrors(TWO_TARGETS_BROKEN).map(({ header, at, target, testName }) => ({ header, at, target, testName }))).toEqual([
      {
        header: 'error[E0425]: cannot find function `gone` in crate `crt`',
        at: { file: 'tests/common/mod.rs', line: 2 },
        target: 'test "t010_common"',
        testName: 't010_common',
      },
      {
        header: 'error[E0425]: cannot find function `nope` in crate `crt`',
        at: { file: 'tests/t009_dir/main.rs', line: 3 },
        target: 'test "t009_dir"',
        testName: 't009_dir',
      },
    ]);
    expect(cargoErrors(LIB_BROKEN)).toEqual([
      {
        header: 'error[E0599]: no method named `nothing` found for type `i32` in the current scope',
        at: { file: 'src/lib.rs', line: 2 },
        lines: [
          'error[E0599]: no method named `nothing` found for type `i32` in the current scope',
          ' --> src/lib.rs:2:10',
          '  |',
          '2 |     1i32.nothing()',
          '  |          ^^^^^^^ method not found in `i32`',
        ],
        target: 'lib',
        testName: null,
      },
    ]);
    expect(cargoErrors(NO_MANIFEST)).toMatchObject([{ at: null, target: null, testName: null }]);
    // What the binaries print is not the build's: an error line after `Running` is no compile error.
    expect(cargoErrors(ONE_FILE)).toEqual([]);
  });
});

describe('cargoText', () => {
  it('drops cargo’s progress lines and libtest’s --logfile warning, and keeps the rest as printed', () => {
    expect(cargoText(LOGFILE)).toBe(
      LOGFILE.split('\n')
        .filter((l) => !/^ {4}Finished|^warning: `--logfile`/.test(l))
        .join('\n')
        .trimEnd(),
    );
    expect(cargoText(LOGFILE)).toMatch(/^ {5}Running tests\/t001_add\.rs .*\nrunning 5 tests\ntest adds \.\.\. ok\n/);
    // libtest's warning does not disturb the reading either.
    expect(parseCargoTest(LOGFILE)).toMatchObject({ cases: { length: 5 }, loadErrors: [] });
    expect(cargoText(BLOCKING).split('\n').slice(0, 3)).toEqual([
      '     Running tests/ghost.rs (target/debug/deps/ghost-0e27f89f5bc54e38)',
      '',
      'running 1 test',
    ]);
    expect(cargoText(LOCKING).split('\n')[0]).toBe('     Running tests/t001.rs (target/debug/deps/t001-f29a976f284bcc26)');
    expect(cargoText(COLOURED)).toBe(
      '     Running tests/t001_add.rs (target/debug/deps/t001_add-2ca16391df75e254)\n\nrunning 1 test\ntest inner::deep ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 4 filtered out; finished in 0.00s',
    );
    expect(cargoText(ONE_TARGET_BROKEN)).toMatch(/^error\[E0425\]/);
  });
});

describe('crateName', () => {
  it('reads the name a test uses: [lib] name, else [package] name with - as _; none without a package', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilth-cargo-name-'));
    const manifest = (text: string) => {
      fs.writeFileSync(path.join(dir, 'Cargo.toml'), text);
      return crateName(dir);
    };
    try {
      expect(crateName(dir)).toBe('');
      expect(manifest('[package]\nname = "my-crate"\nversion = "0.1.0"\n\n[dependencies]\nname-less = "1"\n')).toBe('my_crate');
      expect(manifest("[package] # the crate\n  name='quoted'\n")).toBe('quoted');
      expect(manifest('[dependencies.other]\nname = "not-it"\n[package]\nname = "it"\n')).toBe('it');
      expect(manifest('[package]\nname = "pkg"\n[lib]\npath = "src/lib.rs"\n[[bin]]\nname = "tool"\n')).toBe('pkg');
      expect(manifest('[lib]\nname = "short"\n[package]\nname = "long-name"\nname = "again"\n')).toBe('short');
      expect(manifest('[workspace]\nmembers = ["a"]\n')).toBe('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('eleven cases, a forged line and eleven build errors (real cargo 1.95 runs)', () => {
  // A test that writes ` test forged ... ok` to the real stdout (libtest captures only print!):
  // a line that does not start with `test ` is no result.
  const MANY =
    '   Compiling mk v0.1.0 (/tmp/mk)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.13s\n     Running tests/many.rs (/tmp/mk-target/debug/deps/many-5c0a4c049ddd62f6)\n\nrunning 11 tests\ntest t00 ... ok\ntest t01 ... ok\ntest t02 ... ok\ntest t03 ... ok\ntest t04 ... ok\ntest t05 ... ok\ntest t06 ... ok\ntest t07 ... ok\ntest t08 ... ok\ntest t09 ... ok\n test forged ... ok\ntest writes ... ok\n\ntest result: ok. 11 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n';
  const BAD =
    '   Compiling mk v0.1.0 (/tmp/mk)\nerror[E0425]: cannot find function `m0` in crate `mk`\n --> tests/bad.rs:3:9\n  |\n3 |     mk::m0();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m1` in crate `mk`\n --> tests/bad.rs:4:9\n  |\n4 |     mk::m1();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m2` in crate `mk`\n --> tests/bad.rs:5:9\n  |\n5 |     mk::m2();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m3` in crate `mk`\n --> tests/bad.rs:6:9\n  |\n6 |     mk::m3();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m4` in crate `mk`\n --> tests/bad.rs:7:9\n  |\n7 |     mk::m4();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m5` in crate `mk`\n --> tests/bad.rs:8:9\n  |\n8 |     mk::m5();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m6` in crate `mk`\n --> tests/bad.rs:9:9\n  |\n9 |     mk::m6();\n  |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m7` in crate `mk`\n  --> tests/bad.rs:10:9\n   |\n10 |     mk::m7();\n   |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m8` in crate `mk`\n  --> tests/bad.rs:11:9\n   |\n11 |     mk::m8();\n   |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m9` in crate `mk`\n  --> tests/bad.rs:12:9\n   |\n12 |     mk::m9();\n   |         ^^ not found in `mk`\n\nerror[E0425]: cannot find function `m10` in crate `mk`\n  --> tests/bad.rs:13:9\n   |\n13 |     mk::m10();\n   |         ^^^ not found in `mk`\n\nFor more information about this error, try `rustc --explain E0425`.\nerror: could not compile `mk` (test "bad") due to 11 previous errors\n';

  it('reads two-digit counts, and no result from a line that only contains one', () => {
    const report = parseCargoTest(MANY);
    expect(report.loadErrors).toEqual([]);
    expect(report.cases.map((c) => c.name)).toEqual(['t00', 't01', 't02', 't03', 't04', 't05', 't06', 't07', 't08', 't09', 'writes']);
    expect(report.cases.every((c) => c.outcome === 'passed' && c.file === 'tests/many.rs')).toBe(true);
  });

  it('gives a target all of its errors when cargo counts ten or more', () => {
    const [only, ...rest] = parseCargoTest(BAD).loadErrors;
    expect(rest).toEqual([]);
    expect(only!.file).toBe('tests/bad.rs');
    expect(only!.message).toMatch(/^error\[E0425\]: cannot find function `m0` in crate `mk`/);
    expect(cargoErrors(BAD).filter((e) => e.testName === 'bad')).toHaveLength(11);
  });
});
