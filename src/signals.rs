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

/// Turns an abort into a message and exit status 1 after removing the temporaries being
/// written: Rust aborts the process when an allocation fails ("memory allocation of N bytes
/// failed"), which would otherwise leave half-written temporaries and end with SIGABRT.
pub fn install_abort_handler() {
    #[cfg(unix)]
    {
        extern "C" fn on_abort(_: libc::c_int) {
            const MSG: &[u8] = b"error: out of memory: an allocation failed (a memory limit such \
as `ulimit -v` may be too low for this grid or image); unfinished files were removed\n";
            plume_core::atomic::live::remove_live_temporaries();
            // SAFETY: write and _exit are async-signal-safe; MSG is a static buffer.
            unsafe {
                libc::write(2, MSG.as_ptr().cast(), MSG.len());
                libc::_exit(1);
            }
        }
        // SAFETY: as in `install`; the handler calls only async-signal-safe functions.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_abort as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(libc::SIGABRT, &act, std::ptr::null_mut());
        }
    }
}

/// Starts the worker threads (all cores, or `threads`) before any work, so a process that
/// cannot start them (a memory limit too low for their stacks) gets a message instead of a
/// panic on first use.
pub fn start_workers(threads: Option<usize>) -> Result<(), String> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(t);
    }
    b.build_global().map_err(|e| {
        format!(
            "cannot start the worker threads ({e}); a memory limit such as `ulimit -v` may be \
             too low: raise it, or pass fewer threads where the command takes --threads"
        )
    })?;
    // Every worker allocates once now, so that the allocator arenas it will map (64 MiB of
    // address space each with glibc) exist before any memory check counts what is mapped:
    // otherwise the same run's check saw more or less free address space depending on how
    // far the threads had got (a slower start, as `auto`'s probe makes, refused runs that a
    // quick one accepted).
    rayon::broadcast(|_| std::hint::black_box(vec![0u8; 64]).len());
    Ok(())
}

/// Installs the handlers and calls `on_stop` from a watcher thread once a signal arrives (to
/// wake an event loop, which a signal handler cannot do safely).
pub fn watch(on_stop: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    install()?;
    std::thread::Builder::new()
        .name("plume-signals".into())
        .spawn(move || {
            while !stopped() {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            on_stop();
        })?;
    Ok(())
}
