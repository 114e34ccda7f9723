/* SPDX-License-Identifier: MIT */
/* Cleaning up after a signal that kills softpmu stat or record
 * (cleanup.h).
 *
 * The handler reaches what it removes through the only mutable state of
 * the command, this file's: a signal handler has no other way in. The
 * path is copied into a buffer allocated once, with the signals blocked
 * (the session blocks them around each call), and the handler calls
 * async-signal-safe functions only (signal-safety(7)): kill, waitpid,
 * unlink, sigaction, raise. It then dies of the signal, its default
 * action, so that the exit status is the signal's. */
#define _POSIX_C_SOURCE 200809L /* sigaction, kill */
#include "cleanup.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "session.h" /* SESSION_PATH_MAX */

static char cleanup_tmp[SESSION_PATH_MAX];
static volatile sig_atomic_t cleanup_have_tmp;
static volatile sig_atomic_t cleanup_child;
static bool cleanup_installed;

static const int cleanup_signals[] = {SIGHUP, SIGINT, SIGPIPE, SIGTERM};

/* The child gets the signal too (it would else outlive the command and
 * write the file again), and is waited for, as a shell waits; then the
 * file goes, and the signal's default action ends the command. */
static void cleanup_on_signal(int sig)
{
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  pid_t child = (pid_t)cleanup_child;

  if (child > 0 && kill(child, sig) == 0)
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
  if (cleanup_have_tmp)
    unlink(cleanup_tmp);
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig); /* blocked in its handler: delivered as it returns */
}

/* A handler for each signal, except one ignored when softpmu started
 * (nohup): it stays ignored. */
static void cleanup_install(void)
{
  struct sigaction sa = {.sa_handler = cleanup_on_signal}, old;
  size_t i;

  sigemptyset(&sa.sa_mask);
  for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
    sigaddset(&sa.sa_mask, cleanup_signals[i]);
  for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]); i++)
    if (sigaction(cleanup_signals[i], NULL, &old) == 0 &&
        old.sa_handler != SIG_IGN)
      sigaction(cleanup_signals[i], &sa, NULL);
  cleanup_installed = true;
}

void cli_cleanup_guard(const char *tmp, pid_t child)
{
  if (!cleanup_installed)
    cleanup_install();
  cleanup_have_tmp = 0;
  if (tmp && snprintf(cleanup_tmp, sizeof(cleanup_tmp), "%s", tmp) <
                 (int)sizeof(cleanup_tmp))
    cleanup_have_tmp = 1;
  cleanup_child = (sig_atomic_t)child;
}
