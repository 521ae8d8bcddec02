//! The few OpenGL calls glium does not make for us, on the solver's own context: timestamp
//! queries (glium's timer queries wrap draws, not compute dispatches), a memory barrier
//! before another context reads what the kernels wrote, and wrapping a 3D texture that
//! another context of the same share group made. This is the crate's only unsafe code.

#![allow(unsafe_code)]

use glium::backend::Context;
use glium::texture::{Dimensions, MipmapsOption, Texture3d, UncompressedFloatFormat};
use std::ffi::c_void;
use std::rc::Rc;

/// Looks up an OpenGL entry point by name on the solver's context.
pub type ProcAddress = Box<dyn Fn(&str) -> *const c_void>;

const GL_TIMESTAMP: u32 = 0x8E28;
const GL_QUERY_RESULT: u32 = 0x8866;
const GL_QUERY_RESULT_AVAILABLE: u32 = 0x8867;
const GL_ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;
const GL_MAX_SHADER_STORAGE_BLOCK_SIZE: u32 = 0x90DE;

type GenQueries = unsafe extern "system" fn(i32, *mut u32);
type DeleteQueries = unsafe extern "system" fn(i32, *const u32);
type QueryCounter = unsafe extern "system" fn(u32, u32);
type GetQueryObjectU64 = unsafe extern "system" fn(u32, u32, *mut u64);
type MemoryBarrier = unsafe extern "system" fn(u32);
type GetInteger64v = unsafe extern "system" fn(u32, *mut i64);

/// The entry points, each `None` where the driver does not have it.
pub(crate) struct RawGl {
    ctx: Rc<Context>,
    gen_queries: Option<GenQueries>,
    delete_queries: Option<DeleteQueries>,
    query_counter: Option<QueryCounter>,
    get_query_u64: Option<GetQueryObjectU64>,
    memory_barrier: Option<MemoryBarrier>,
    get_integer64: Option<GetInteger64v>,
    /// Query objects made so far, reused step after step.
    pool: Vec<u32>,
    /// How many of `pool` hold a timestamp not yet read.
    used: usize,
}

/// `name`'s entry point as a function pointer of type `F`, `None` where it is null.
///
/// # Safety
/// `F` must be the C signature of the OpenGL function `name`.
unsafe fn load<F: Copy>(get: &ProcAddress, name: &str) -> Option<F> {
    let p = get(name);
    if p.is_null() {
        return None;
    }
    debug_assert_eq!(
        std::mem::size_of::<F>(),
        std::mem::size_of::<*const c_void>()
    );
    // SAFETY: the caller names the right signature; the pointer is not null.
    Some(unsafe { std::mem::transmute_copy::<*const c_void, F>(&p) })
}

impl RawGl {
    /// Loads the entry points on `ctx` (current on this thread).
    pub fn new(ctx: Rc<Context>, get: &ProcAddress) -> Self {
        // SAFETY: each type alias is that function's C signature (OpenGL 4.5 core).
        unsafe {
            Self {
                gen_queries: load(get, "glGenQueries"),
                delete_queries: load(get, "glDeleteQueries"),
                query_counter: load(get, "glQueryCounter"),
                get_query_u64: load(get, "glGetQueryObjectui64v"),
                memory_barrier: load(get, "glMemoryBarrier"),
                get_integer64: load(get, "glGetInteger64v"),
                ctx,
                pool: Vec::new(),
                used: 0,
            }
        }
    }

    /// Whether stage times can come from timestamp queries.
    pub fn has_timer(&self) -> bool {
        self.gen_queries.is_some() && self.query_counter.is_some() && self.get_query_u64.is_some()
    }

    /// The card's clock now, in nanoseconds (`glGetInteger64v(GL_TIMESTAMP)`: it does not
    /// wait for the commands issued so far), `None` without it.
    pub fn clock_now(&self) -> Option<u64> {
        let get = self.get_integer64?;
        let mut v = 0i64;
        // SAFETY: `v` takes the one 64-bit value GL_TIMESTAMP has.
        unsafe { self.ctx.exec_in_context(|| get(GL_TIMESTAMP, &mut v)) };
        u64::try_from(v).ok().filter(|&t| t > 0)
    }

    /// The largest storage block a kernel may bind, bytes, as the driver reports it
    /// (`GL_MAX_SHADER_STORAGE_BLOCK_SIZE`; OpenGL 4.3 asks for at least 2²⁷), `None`
    /// where it reports none.
    pub fn max_storage_block(&self) -> Option<u64> {
        let get = self.get_integer64?;
        let mut v = 0i64;
        // SAFETY: `v` takes the one 64-bit value the limit has.
        unsafe {
            self.ctx
                .exec_in_context(|| get(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &mut v))
        };
        u64::try_from(v).ok().filter(|&b| b > 0)
    }

    /// Records the card's clock once the commands issued so far have run; returns the
    /// query's place to read with [`RawGl::timestamps`], `None` without timer queries.
    pub fn timestamp(&mut self) -> Option<usize> {
        let (Some(gen), Some(counter)) = (self.gen_queries, self.query_counter) else {
            return None;
        };
        if self.used == self.pool.len() {
            let mut q = 0u32;
            // SAFETY: the context is made current; `q` is a valid place for one name.
            unsafe { self.ctx.exec_in_context(|| gen(1, &mut q)) };
            self.pool.push(q);
        }
        let q = self.pool[self.used];
        // SAFETY: `q` is a query object of this context; the call changes no bound state.
        unsafe { self.ctx.exec_in_context(|| counter(q, GL_TIMESTAMP)) };
        self.used += 1;
        Some(self.used - 1)
    }

    /// The card's clock, in nanoseconds, at every timestamp recorded since the last call
    /// (waiting for the last of them, counted as a wait where it is not yet there); the
    /// queries are then free for reuse.
    pub fn timestamps(&mut self) -> Vec<u64> {
        let Some(get) = self.get_query_u64 else {
            return Vec::new();
        };
        let qs = self.pool[..self.used].to_vec();
        self.used = 0;
        // At most one wait: the first read stalls until the last timestamp's work is done,
        // the rest are then ready.
        if let Some(&last) = qs.last() {
            let mut ready = 0u64;
            // SAFETY: `last` holds a recorded timestamp; `ready` takes the 64-bit answer.
            unsafe {
                self.ctx
                    .exec_in_context(|| get(last, GL_QUERY_RESULT_AVAILABLE, &mut ready))
            };
            if ready == 0 {
                crate::cost::wait();
            }
        }
        qs.into_iter()
            .map(|q| {
                let mut v = 0u64;
                // SAFETY: `q` holds a recorded timestamp; `v` takes the 64-bit result.
                unsafe { self.ctx.exec_in_context(|| get(q, GL_QUERY_RESULT, &mut v)) };
                v
            })
            .collect()
    }

    /// Drops the timestamps recorded and not read (their queries are reused).
    pub fn forget(&mut self) {
        self.used = 0;
    }

    /// Makes every write of the kernels so far visible to whatever reads next (another
    /// context of the share group included, once this one has finished).
    pub fn barrier(&self) {
        if let Some(b) = self.memory_barrier {
            // SAFETY: a plain barrier; it changes no bound state.
            unsafe { self.ctx.exec_in_context(|| b(GL_ALL_BARRIER_BITS)) };
        }
    }
}

impl Drop for RawGl {
    fn drop(&mut self) {
        if let (Some(del), false) = (self.delete_queries, self.pool.is_empty()) {
            let qs = std::mem::take(&mut self.pool);
            // SAFETY: the names were made by `glGenQueries` on this context.
            unsafe {
                self.ctx
                    .exec_in_context(|| del(qs.len() as i32, qs.as_ptr()))
            };
        }
    }
}

/// The 3D texture another context of the solver's share group made (`id`, `format`, `dims`
/// as it made it), for the kernels to write. Dropping the wrapper leaves the texture alone:
/// its maker owns it.
///
/// # Safety
/// `id` must name a live, immutable-format 3D texture of exactly `format` and `dims` in a
/// context sharing objects with `ctx`, and stay so while the wrapper lives.
pub(crate) unsafe fn shared_texture_3d(
    ctx: &Rc<Context>,
    id: u32,
    format: UncompressedFloatFormat,
    dims: [u32; 3],
) -> Texture3d {
    // SAFETY: as the caller promises; `owned: false` keeps glium from deleting it.
    unsafe {
        Texture3d::from_id(
            ctx,
            format,
            id,
            false,
            MipmapsOption::NoMipmap,
            Dimensions::Texture3d {
                width: dims[0],
                height: dims[1],
                depth: dims[2],
            },
        )
    }
}
