//! Signals that ask a run to stop: Ctrl-C (SIGINT), SIGTERM (`kill`, systemd, job
//! schedulers) and SIGHUP (a closed terminal) all set one flag the command polls between
//! solver steps, so it can discard the frame in flight, leave a consistent folder and exit
//! non-zero with a message. A signal the process was started ignoring (`nohup` ignores
//! SIGHUP) stays ignored. The handler removes itself as it runs: a second signal acts at
//! once (the user insisting).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static LAST: AtomicI32 = AtomicI32::new(0);

/// The flag the handlers set.
pub fn flag() -> &'static AtomicBool {
    &STOP
}

/// Whether a stop was asked for.
pub fn stopped() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// The name of the signal that asked for the stop ("a signal" when unknown).
pub fn last_name() -> &'static str {
    #[cfg(unix)]
    {
        match LAST.load(Ordering::SeqCst) {
            libc::SIGINT => "Ctrl-C (SIGINT)",
            libc::SIGTERM => "SIGTERM",
            libc::SIGHUP => "SIGHUP",
            _ => "a signal",
        }
    }
    #[cfg(not(unix))]
    {
        let _ = LAST.load(Ordering::SeqCst);
        "Ctrl-C"
    }
}

#[cfg(unix)]
extern "C" fn on_signal(sig: libc::c_int) {
    // Only atomics here: async-signal-safe.
    LAST.store(sig, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
}

/// Installs the handlers (once is enough; later calls do nothing new).
pub fn install() -> std::io::Result<()> {
    #[cfg(unix)]
    {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: sigaction with a zeroed struct, a handler that only touches atomics, and
            // valid pointers to locals; reading the old action first keeps an inherited
            // "ignore" in place.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if old.sa_sigaction == libc::SIG_IGN {
                    continue;
                }
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                act.sa_flags = libc::SA_RESETHAND | libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                if libc::sigaction(sig, &act, std::ptr::null_mut()) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }
    #[cfg(not(unix))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        let mut result = Ok(());
        ONCE.call_once(|| {
            result = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst))
                .map_err(std::io::Error::other);
        });
        result
    }
}
