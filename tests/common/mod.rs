//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod gl;
pub mod mesh;

use plume::sim::{Dims, Solver};

/// The GPU solver of `scene`; the GPU tests need Mesa's EGL and llvmpipe (GL 4.5) and fail
/// without them.
pub fn gpu_solver(scene: &plume::scene::Scene) -> plume_gpu::GpuSolver {
    plume::backend::gpu(scene).unwrap_or_else(|e| {
        panic!("no GPU solver: {e}. The GPU tests need Mesa's EGL and llvmpipe (GL 4.5).")
    })
}

/// Sets every face velocity of `st` to a value up to ±1e4 (a hundred times any speed limit a
/// 16³ grid has), both ways, everywhere (the grid's open ends too), from a fixed sequence
/// (xorshift32): faces for the speed limit to hold.
pub fn wild_faces(st: &mut plume::sim::FieldState) {
    let mut seed = 2_463_534_242u32;
    for v in &mut st.velocity {
        for x in v.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            *x = 2.0e4 * ((seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5);
        }
    }
}

/// A small deterministic random generator (xorshift64*), so tests need no extra crates.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    /// Log-uniform in [lo, hi], lo > 0.
    pub fn log_range(&mut self, lo: f32, hi: f32) -> f32 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }
    pub fn usize(&mut self, lo: usize, hi_incl: usize) -> usize {
        lo + (self.next_u64() % (hi_incl - lo + 1) as u64) as usize
    }
    pub fn bool(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
}

/// Largest |∇·u|·h (sum of outgoing face velocities) over all cells, computed here from the
/// face arrays without the solver's own code.
pub fn max_face_divergence(s: &Solver) -> f32 {
    let d: Dims = s.dims();
    let (u, v, w) = (s.velocity(0), s.velocity(1), s.velocity(2));
    let iu = |i: usize, j: usize, k: usize| u[i + (d.nx + 1) * (j + d.ny * k)];
    let iv = |i: usize, j: usize, k: usize| v[i + d.nx * (j + (d.ny + 1) * k)];
    let iw = |i: usize, j: usize, k: usize| w[i + d.nx * (j + d.ny * k)];
    let mut m = 0.0f32;
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let div = iu(i + 1, j, k) - iu(i, j, k) + iv(i, j + 1, k) - iv(i, j, k)
                    + iw(i, j, k + 1)
                    - iw(i, j, k);
                m = m.max(div.abs());
            }
        }
    }
    m
}

/// Largest |value| over the three face-velocity arrays.
pub fn max_speed_component(s: &Solver) -> f32 {
    (0..3)
        .flat_map(|a| s.velocity(a).iter().copied())
        .fold(0.0f32, |m, x| m.max(x.abs()))
}

/// Every field finite and the density non-negative.
pub fn all_finite(s: &Solver) -> bool {
    s.density().iter().all(|d| d.is_finite() && *d >= 0.0)
        && (0..3).all(|a| s.velocity(a).iter().all(|x| x.is_finite()))
        && s.pressure().iter().all(|p| p.is_finite())
}

/// Runs `cmd` (stdout and stderr dropped) and returns whether it exited 0 and its peak
/// resident memory in KiB, from its own rusage (`wait4`).
#[cfg(unix)]
pub fn peak_kib(cmd: &mut std::process::Command) -> (bool, i64) {
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the command starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for this child, which std never
    // waits for (the Child is forgotten below).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child; the pointers are valid for the call.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    std::mem::forget(child);
    assert_eq!(r, pid, "wait4");
    (
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        usage.ru_maxrss,
    )
}

/// A path in the system's temporary folder for one test, `plume-{tag}-{process}`, emptied
/// of what an earlier run of the same process id left there (it is not created).
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("plume-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
