#include <stdio.h>
#include <editline/readline.h>

/* Swift 6 refuses to touch C's mutable globals from Swift; the prompt sets libedit's through these,
   always from the one thread that runs the line editor. */
static inline void xz_rl_configure(const char *name, rl_completion_func_t *completion) {
    rl_readline_name = name;
    rl_catch_signals = 0;
    rl_attempted_completion_function = completion;
}

static inline void xz_rl_completion_done(void) { rl_attempted_completion_over = 1; }

/* Writes `text` to stdout and flushes it, so it reaches the terminal before libedit redraws. */
static inline void xz_print_now(const char *text) {
    fputs(text, stdout);
    fflush(stdout);
}
