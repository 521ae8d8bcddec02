//! Memory: what a solver will hold, known before it is built, checked against what the
//! machine and the process may still have, so a grid too big is refused with a message
//! rather than an allocation failure aborting the program mid-step.

use super::*;
use crate::sim::pressure::multigrid;

/// What a solver on `dims` with `params` holds once every stage has run: the fields, the
/// scratch the stages allocate on first use (MacCormack, the RK2 sampler) and the
/// pressure solver's hierarchy. `obstacles`: the scene has solid cells; `temperature`: some
/// emitter sets a temperature (the temperature is then advected, with its own scratch);
/// `fire`: some emitter brings fuel or flame (two more fields, carried the same way).
/// Equal to [`Solver::memory_bytes`] after a few steps of such a scene.
pub fn estimate_bytes(
    dims: Dims,
    params: &FluidParams,
    obstacles: bool,
    temperature: bool,
    fire: bool,
) -> u64 {
    let n = dims.cells() as u64;
    let faces: u64 = (0..3).map(|a| dims.faces(a).cells() as u64).sum();
    // Density and its scratch, temperature, pressure; the velocity and its scratch (which
    // also holds the projection's right-hand side and MacCormack's backtrace cells).
    let mut floats = 4 * n + 2 * faces;
    let mac = params.advection == Advection::MacCormack;
    let temperature = temperature || fire;
    let fire = u64::from(fire);
    // Fuel and flame, their scratch copies and MacCormack intermediates.
    floats += 2 * n * fire * (2 + u64::from(mac));
    // The scalar advection's scratch for the temperature and the MacCormack intermediates of
    // density and temperature: present when the scene advects that way, and always when the
    // multigrid solver borrows them (then one value a cell each).
    let lent = params.pressure_method == PressureMethod::Multigrid;
    for present in [temperature, mac, mac && temperature] {
        floats += n * u64::from(present || lent);
    }
    if params.velocity_advection == Advection::MacCormack {
        // φ̂ and the clamping ranges (two values) per face.
        floats += 3 * faces;
    }
    // + the RK2 sampler's window of cell velocities.
    let halo = crate::sim::advect::halo_for_cfl(params.max_cfl);
    let mut bytes = 4 * floats + crate::sim::advect::VelSampler::bytes_for(dims, halo);
    if obstacles {
        bytes += n + 4 * n; // solid mask, pressure diagonal
    }
    bytes
        + match params.pressure_method {
            PressureMethod::Multigrid => multigrid::estimate_bytes(dims.as_array()),
            PressureMethod::RedBlackSor => {
                let hx = dims.nx.div_ceil(2) as u64;
                let rows = (dims.ny * dims.nz) as u64;
                4 * (8 * hx * rows + hx + 1)
            }
        }
}

/// Memory a new allocation may still take, and what limits it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Available {
    /// Bytes.
    pub bytes: u64,
    /// What sets it: `"memory available"`, `"the process's address-space limit"` or `"the
    /// control group's memory limit"`.
    pub limit: &'static str,
    /// Bytes of it a new allocation should leave: under an address-space limit, the
    /// allocator arenas and stacks of worker threads yet to start and one arena more
    /// (64 MiB of address space each with glibc); 0 otherwise.
    pub reserve: u64,
}

fn meminfo_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The tightest of: the machine's available memory, the process's address-space limit less
/// what it already maps (with room for thread stacks and allocator arenas), the control
/// group's memory limit less its use. `None` where none can be read (not Linux).
pub fn available() -> Option<Available> {
    let mut best: Option<Available> = None;
    let mut offer = |bytes: u64, limit: &'static str, reserve: u64| {
        if best.is_none_or(|b| bytes.saturating_sub(reserve) < b.bytes.saturating_sub(b.reserve)) {
            best = Some(Available {
                bytes,
                limit,
                reserve,
            });
        }
    };
    if let Ok(t) = std::fs::read_to_string("/proc/meminfo") {
        if let Some(b) = meminfo_field(&t, "MemAvailable:") {
            offer(b, "memory available", 0);
        }
    }
    if let Ok(t) = std::fs::read_to_string("/proc/self/limits") {
        let soft = t
            .lines()
            .find(|l| l.starts_with("Max address space"))
            .and_then(|l| l.split_whitespace().nth(3))
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(limit) = soft {
            let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
            let mapped = meminfo_field(&status, "VmSize:").unwrap_or(0);
            // Worker threads reserve stacks and allocator arenas (64 MiB of address space
            // each with glibc) as they start; those already running are in VmSize.
            let running = status
                .lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(1);
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
            let to_start = (threads + 1).saturating_sub(running);
            let reserve = to_start * (64 << 20) + (64 << 20);
            offer(
                limit.saturating_sub(mapped),
                "the process's address-space limit",
                reserve,
            );
        }
    }
    let cg = |f: &str| {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{f}"))
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
    };
    if let (Some(max), Some(cur)) = (cg("memory.max"), cg("memory.current")) {
        offer(
            max.saturating_sub(cur),
            "the control group's memory limit",
            0,
        );
    }
    best
}

/// What would not fit, against what is free: "`what` needs about … but only … is free
/// (`limit`)", the figures by [`human`]; [`SimError::Memory`](crate::sim::SimError::Memory)
/// says it, with its advice.
pub fn shortfall(what: &str, need: u64, available: u64, limit: &str) -> String {
    format!(
        "{what} needs about {} but only {} is free ({limit})",
        human(need),
        human(available)
    )
}

/// Formats bytes as KiB (under 10 MiB, so a small figure is never "0 MiB"), MiB or GiB.
pub fn human(bytes: u64) -> String {
    let mib = bytes as f64 / (1u64 << 20) as f64;
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else if mib >= 10.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

/// Refuses `need` bytes for `what` when more than is available. An eighth is added to `need`
/// first: estimates count what the solver and exporters hold, not the allocator's and the
/// threads' overheads or short-lived copies (measured at 256³: the process's peak resident
/// memory was 6% above the estimate).
pub fn check(need: u64, what: &str) -> Result<(), SimError> {
    let need = need + need / 8;
    match available() {
        Some(a) if need + a.reserve > a.bytes => Err(SimError::Memory {
            what: what.to_string(),
            need,
            available: a.bytes,
            limit: if a.reserve > 0 {
                "the process's address-space limit; 64 MiB of what is free is kept for each \
                 allocator arena of the worker threads yet to start, and one more"
            } else {
                a.limit
            },
        }),
        _ => Ok(()),
    }
}

/// A vector of `n` copies of `v`, or an error instead of an abort when the allocation fails.
pub fn try_filled<T: Clone>(n: usize, v: T, what: &str) -> Result<Vec<T>, SimError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| SimError::Memory {
        what: what.to_string(),
        need: (n * std::mem::size_of::<T>()) as u64,
        available: available().map_or(0, |a| a.bytes),
        limit: "an allocation failure",
    })?;
    out.resize(n, v);
    Ok(out)
}
