//! The GPU solver itself: its fields on the card, the step as the CPU solver's list of
//! stages, and what reads it. It lives on the thread that owns its OpenGL context (see
//! `worker.rs`); nothing here is `Send`.

use glium::backend::Context;
use glium::buffer::{Buffer, BufferMode, BufferType};
use glium::uniform;
use plume_core::frame::{cell_velocity, divergence, emitter_marks, Frame, Select};
use plume_core::sim::body::Body;
use plume_core::sim::cover::{self, Cover};
use plume_core::sim::{
    Boundaries, Emitter, Face, FieldState, FireParams, FluidParams, Grid, SimError, StepStats,
};
use std::rc::Rc;

use crate::fields::{Field, Fields};
use crate::kernels::{run, Kernels};
use crate::lists::{Covered, List};

/// The solver on the card.
pub(crate) struct Engine {
    pub ctx: Rc<Context>,
    pub k: Kernels,
    pub f: Fields,
    pub grid: Grid,
    pub params: FluidParams,
    pub boundaries: Boundaries,
    pub fire: FireParams,
    pub emitters: Vec<Emitter>,
    /// Bodies of the emitters that are more than a plain shape (covered anew each sub-step).
    pub bodies: Vec<Option<Body>>,
    /// What the plain emitters cover (uploaded once).
    pub covers: Vec<Option<Covered>>,
    pub time: f64,
    pub steps: u64,
    pub stats: StepStats,
    pub temp_active: bool,
    /// Something burns: fuel and flame are advected and combustion runs.
    pub fire_active: bool,
    /// The iteration caps the step's budget set for the running sub-step (`None` outside
    /// a step: the parameters' own).
    pub(crate) caps: Option<plume_core::sim::cost::Caps>,
    pub sub_dt: f32,
    /// The largest |face velocity| the last step left (from its finite check), while
    /// nothing changed it since.
    pub vmax: Option<f32>,
    /// The speed limit's stage ran and left its work to the projection's divergence pass,
    /// which holds the faces within the limit as it reads them (see `stage_speed_limit`).
    pub limit_pending: bool,
    pub non_finite: Option<&'static str>,
    /// The step's timestamps so far: each stage's name (none: a sub-step's start) and its
    /// query's place (see `step.rs`).
    pub(crate) clock: Vec<(&'static str, Option<usize>)>,
    /// How many partial results the last reduction wrote.
    pub last_groups: std::cell::Cell<u32>,
    /// V-cycles the pressure solves have issued.
    pub v_cycles: std::cell::Cell<u64>,
    /// Dispatches of the V-cycle's coarse levels in shared memory (`mg.comp`'s part 6).
    pub shared_levels: std::cell::Cell<u64>,
    /// Iterations the last pressure solve took (the next one's first batch).
    pub last_pressure_iterations: u32,
    /// The renderer is a software one (llvmpipe).
    pub software: bool,
    /// The most cells of a coarse level the V-cycle works in its fused dispatch (see
    /// `multigrid.rs`), where the V-cycle's way is set from outside (else the tuner's).
    pub fused_cells: u32,
    /// The smoother's sweeps by tiles (`smooth.comp`), where the V-cycle's way is set from
    /// outside (else the tuner's).
    pub tiled_smoothing: bool,
    /// Cells an invocation of the V-cycle's passes a sweep (1 or `kernels::WIDE_CELLS`),
    /// where its way is set from outside (else the tuner's).
    pub sweep_cells: u32,
    /// The V-cycle's passes a sweep in rows of four cells, `vec4`s (`mg_rows.comp`), where
    /// its way is set from outside (else the tuner's).
    pub sweep_rows: bool,
    /// Which stages' work is folded into another's pass (all, but where a test compares).
    pub folds: crate::lists::Folds,
    /// Picks between the ways of doing a piece of work that give the same bits (one cell
    /// an invocation or `kernels::WIDE_CELLS`, the vorticity by tiles or in two passes, the
    /// V-cycle's smoother and fused levels) by timing them on the card (`tune.rs`).
    pub tuner: crate::tune::Tuner,
    /// The card has been kept copying before a copy was timed (`probe.rs`): the copies
    /// timed after the first need no warm-up of their own.
    pub copies_warmed: bool,
    /// A step's sub-step is running its stages (not a stage run alone).
    pub in_substep: bool,
    /// The velocity's advection added the forces' buoyancy (`advect_faces.comp`'s
    /// `buoyant`): the forces' stage, next, has nothing to do.
    pub buoyancy_done: bool,
    /// The pressure solve's multigrid preconditioner (`None`: Jacobi, where its levels do
    /// not fit the scratch they borrow).
    pub mg: Option<crate::lists::Multigrid>,
    /// The obstacles and their solids.
    pub obs: crate::lists::Obstacles,
    /// The solid cells, a bit each (one word of 0 without obstacles).
    pub solid_bits: Buffer<[u32]>,
    /// The OpenGL calls glium does not make (timestamps, barriers).
    pub raw: crate::raw::RawGl,
    /// Times each dispatch where it is on (see `clock::KernelClock`).
    pub kernel_clock: Rc<crate::clock::KernelClock>,
    /// The scalars' active region between sub-steps (`region.rs`).
    pub region: crate::lists::RegionState,
    /// The blackbody emission table (rgb per entry) the flame's light is summed with.
    pub blackbody: Buffer<[f32]>,
    /// What has crossed the bus from the card so far.
    pub transfers: std::cell::Cell<crate::Transfers>,
}

pub(crate) use crate::lists::Reduced;
pub(crate) use crate::tune::Site;

impl Engine {
    /// A solver for `grid` on `ctx` with every field at rest.
    pub fn new(
        ctx: Rc<Context>,
        proc_address: &crate::raw::ProcAddress,
        grid: Grid,
        params: FluidParams,
        boundaries: Boundaries,
    ) -> Result<Self, String> {
        let ctx_renderer = ctx.get_opengl_renderer_string().to_string();
        let kernel_clock = Rc::new(crate::clock::KernelClock::new(crate::raw::RawGl::new(
            Rc::clone(&ctx),
            proc_address,
        )));
        let raw = crate::raw::RawGl::new(Rc::clone(&ctx), proc_address);
        // (the fields first: how the cell velocity fits decides how its kernels compile)
        let f = Fields::new(&ctx, grid.dims, raw.max_storage_block())?;
        let software = crate::is_software(ctx_renderer.as_str());
        let k = Kernels::new(&ctx, software, f.cell_vel_floats, &kernel_clock)?;
        let tuner = crate::tune::Tuner::new(
            crate::raw::RawGl::new(Rc::clone(&ctx), proc_address),
            crate::kernels::tuning(software),
            software,
        );
        if let Some(cells) = crate::kernels::cells_per_invocation() {
            for site in crate::tune::CELL_SITES {
                tuner.fix(site, usize::from(cells == crate::kernels::WIDE_CELLS));
            }
        }
        if let Some(rows) = crate::kernels::laplace_rows() {
            tuner.fix(Site::Laplace, usize::from(rows));
        }
        if let Some(rows) = crate::kernels::divergence_rows() {
            tuner.fix(Site::Divergence, usize::from(rows));
        }
        match crate::kernels::gradient_rows() {
            Some(true) => tuner.fix(Site::Gradient, crate::tune::ROWS_WAY),
            Some(false) if crate::kernels::cells_per_invocation().is_none() => {
                tuner.fix(Site::Gradient, 0)
            }
            _ => {}
        }
        if let Some(tiles) = crate::kernels::tiled_vorticity(software) {
            tuner.fix(Site::Vorticity, usize::from(!tiles));
        }
        if crate::kernels::v_cycle_set() {
            // (the V-cycle then as `tiled_smoothing`, `fused_cells` and `sweep_cells` say)
            tuner.fix_v_cycle(
                crate::kernels::tiled_smoothing(software),
                crate::kernels::fused_cells(software),
                crate::kernels::cells_per_invocation().unwrap_or(1),
                crate::kernels::sweep_rows(),
            );
        }
        let sub_dt = params.dt;
        let solid_bits = Buffer::new(
            &ctx,
            &[0u32][..],
            BufferType::ShaderStorageBuffer,
            BufferMode::Default,
        )
        .map_err(|e| format!("{e:?}"))?;
        let table: Vec<f32> = plume_core::blackbody::table().concat();
        let blackbody = Buffer::new(
            &ctx,
            &table[..],
            BufferType::ShaderStorageBuffer,
            BufferMode::Default,
        )
        .map_err(|e| format!("{e:?}"))?;
        let mut e = Self {
            ctx,
            k,
            f,
            grid,
            params,
            boundaries,
            fire: FireParams::default(),
            emitters: Vec::new(),
            bodies: Vec::new(),
            covers: Vec::new(),
            time: 0.0,
            steps: 0,
            stats: StepStats::default(),
            temp_active: false,
            fire_active: false,
            caps: None,
            sub_dt,
            vmax: None,
            limit_pending: false,
            non_finite: None,
            clock: Vec::new(),
            last_groups: std::cell::Cell::new(0),
            v_cycles: std::cell::Cell::new(0),
            shared_levels: std::cell::Cell::new(0),
            last_pressure_iterations: 8,
            software,
            fused_cells: crate::kernels::fused_cells(software),
            tiled_smoothing: crate::kernels::tiled_smoothing(software),
            sweep_cells: crate::kernels::cells_per_invocation().unwrap_or(1),
            sweep_rows: crate::kernels::sweep_rows(),
            folds: Default::default(),
            tuner,
            copies_warmed: false,
            in_substep: false,
            buoyancy_done: false,
            mg: None,
            obs: Default::default(),
            solid_bits,
            raw,
            kernel_clock,
            region: Default::default(),
            blackbody,
            transfers: Default::default(),
        };
        e.rebuild_multigrid(None);
        e.reset();
        Ok(e)
    }

    /// Runs `work` with the way the tuner picks for `site` now (0: the default), timed
    /// where the tuner is still timing and `timed` (work that may do nothing on the card,
    /// a solve's iteration after the first, is not).
    pub(crate) fn tuned<R>(&self, site: Site, timed: bool, work: impl FnOnce(usize) -> R) -> R {
        let (way, t) = self.tuner.begin(site, timed);
        let r = work(way);
        self.tuner.end(t);
        r
    }

    pub fn dims(&self) -> [u32; 3] {
        let d = self.grid.dims;
        [d.nx as u32, d.ny as u32, d.nz as u32]
    }

    pub fn cells(&self) -> usize {
        self.grid.dims.cells()
    }

    /// Fills `field`'s first `n` values with `v`.
    pub fn fill(&self, field: &Field, n: usize, v: f32) {
        run(
            &self.k.add_constant,
            self.dims(),
            n,
            uniform! {
                Field: field,
                add: v,
                mul: 0.0f32,
                fluid_only: 0u32,
                Solid: &self.solid_bits,
                solids: 0u32,
            },
        );
    }

    /// Clears the fields and the clock (as the CPU solver's `reset`).
    pub fn reset(&mut self) {
        // (the active region's cut-offs start again, as the CPU's)
        self.region.forget();
        let n = self.cells();
        let d = self.grid.dims;
        self.fill(&self.f.density, n, 0.0);
        self.fill(&self.f.temperature, n, self.params.ambient_temperature);
        for a in 0..3 {
            self.fill(&self.f.vel[a], d.faces(a).cells(), 0.0);
            self.fill(&self.f.vel_tmp[a], d.faces(a).cells(), 0.0);
        }
        self.fill(&self.f.pressure, n, 0.0);
        self.temp_active = false;
        self.fire_active = false;
        self.time = 0.0;
        self.steps = 0;
        self.stats = StepStats::default();
        self.faces_changed();
        self.non_finite = None;
        self.restart_obstacles();
        self.start_flow();
    }

    /// An inflow fills its component with its speed at the start (as the CPU's).
    fn start_flow(&mut self) {
        let d = self.grid.dims;
        'found: for axis in 0..3 {
            for side in 0..2 {
                if let Face::Inflow(_) = self.boundaries.face(axis, side) {
                    if let Some(v) = self.boundaries.normal_velocity(axis, side) {
                        self.fill(&self.f.vel[axis], d.faces(axis).cells(), v);
                        break 'found;
                    }
                }
            }
        }
        self.enforce_boundaries();
    }

    /// Sets the normal velocity of every wall and inflow face (one dispatch: the six end
    /// planes).
    pub fn enforce_boundaries(&mut self) {
        self.faces_changed();
        let d = self.grid.dims;
        let (fixed_lo, fixed_hi) = self.fixed_flags();
        let (speed_lo, speed_hi) = self.fixed_speeds();
        let [nx, ny, nz] = d.as_array();
        let planes = 2 * (ny * nz + nx * nz + nx * ny);
        run(
            &self.k.boundary,
            self.dims(),
            planes,
            uniform! {
                U: &self.f.vel[0],
                V: &self.f.vel[1],
                W: &self.f.vel[2],
                fixed_lo: fixed_lo,
                fixed_hi: fixed_hi,
                speed_lo: speed_lo,
                speed_hi: speed_hi,
            },
        );
        self.set_solid_faces();
    }

    /// [`Engine::enforce_boundaries`] after a kernel that set the walls' and inflows' faces
    /// itself (from [`Engine::fixed_speeds`], as the boundary pass would): only the solids'
    /// faces are left to set.
    pub fn boundaries_set(&mut self) {
        self.faces_changed();
        self.set_solid_faces();
    }

    /// The normal velocity of the faces on each axis' ends, (minimum, maximum) sides: the
    /// inflow speed along the inward normal, 0 on walls and open sides (the boundary pass
    /// sets it on the fixed ones).
    pub fn fixed_speeds(&self) -> ([f32; 3], [f32; 3]) {
        let b = &self.boundaries;
        let speed = |s: usize| [0, 1, 2].map(|a| b.normal_velocity(a, s).unwrap_or(0.0));
        (speed(0), speed(1))
    }

    /// Whether solid cells exist, as the kernels' `solids` uniform.
    pub fn solids_flag(&self) -> u32 {
        u32::from(self.has_solids())
    }

    /// Bytes on the card: the fields and the obstacles' mask and lists.
    pub fn memory_bytes(&self) -> u64 {
        let scratch = self
            .f
            .face_scratch
            .as_ref()
            .map_or(0, |b| b.get_size() as u64);
        let mg = self.mg.as_ref().map_or(0, |m| m.bytes());
        // (`bytes_for` counts the cell velocity as vec4s)
        let floats = 4 * self.grid.dims.cells() as u64 * u64::from(self.f.cell_vel_floats);
        crate::fields::bytes_for(self.grid.dims, self.f.fuel.is_some()) - floats
            + self.obs.bytes()
            + scratch
            + mg
    }

    /// Which ends are fixed (walls and inflows): (minimum sides, maximum sides) per axis.
    pub fn fixed_flags(&self) -> ([u32; 3], [u32; 3]) {
        let b = &self.boundaries;
        let fixed = |s: usize| [0, 1, 2].map(|a| u32::from(b.face(a, s).is_fixed()));
        (fixed(0), fixed(1))
    }

    /// Which faces are open: (minimum sides, maximum sides) per axis.
    pub fn open_flags(&self) -> ([u32; 3], [u32; 3]) {
        let b = &self.boundaries;
        (
            [0, 1, 2].map(|a| u32::from(b.face(a, 0).is_open())),
            [0, 1, 2].map(|a| u32::from(b.face(a, 1).is_open())),
        )
    }

    /// Uploads what a shape covers.
    pub fn upload(&self, c: &Cover) -> Result<Covered, String> {
        let list = |l: &[(u32, f32)]| -> Result<Option<List>, String> {
            if l.is_empty() {
                return Ok(None);
            }
            let idx: Vec<u32> = l.iter().map(|x| x.0).collect();
            let w: Vec<f32> = l.iter().map(|x| x.1).collect();
            let mk = |e| format!("uploading a coverage list: {e:?}");
            Ok(Some(List {
                index: Buffer::new(
                    &self.ctx,
                    &idx[..],
                    BufferType::ShaderStorageBuffer,
                    BufferMode::Default,
                )
                .map_err(mk)?,
                weight: Buffer::new(
                    &self.ctx,
                    &w[..],
                    BufferType::ShaderStorageBuffer,
                    BufferMode::Default,
                )
                .map_err(mk)?,
                len: l.len(),
            }))
        };
        Ok(Covered([
            list(&c.cells)?,
            list(&c.faces[0])?,
            list(&c.faces[1])?,
            list(&c.faces[2])?,
        ]))
    }

    /// Applies a coverage list to `field` (see `cover.comp` for the modes).
    pub fn apply(&self, list: &Option<List>, field: &Field, mode: u32, amount: f32) {
        let Some(l) = list else { return };
        run(
            &self.k.cover,
            self.dims(),
            l.len,
            uniform! {
                Index: &l.index,
                Weight: &l.weight,
                Field: field,
                mode: mode,
                amount: amount,
            },
        );
    }

    /// Replaces the emitters: bodies prepared, plain shapes' coverage uploaded.
    pub fn set_emitters(&mut self, es: Vec<Emitter>) -> Result<(), SimError> {
        // (the active region's cut-offs start again, as the CPU's)
        self.region.forget();
        let mut bodies = Vec::with_capacity(es.len());
        let mut covers = Vec::with_capacity(es.len());
        for e in &es {
            e.validate()?;
            let b = cover::emitter_body(&self.grid, e)?;
            let c = match &b {
                Some(_) => None,
                None => Some(
                    self.upload(&cover::shape_cover(&self.grid, &e.shape()?))
                        .map_err(SimError::InvalidParameter)?,
                ),
            };
            bodies.push(b);
            covers.push(c);
        }
        if es.iter().any(Emitter::burns) && self.f.fuel.is_none() {
            let n = self.cells();
            let alloc = |ctx| crate::fields::floats(ctx, n).map_err(SimError::InvalidParameter);
            self.f.fuel = Some(alloc(&self.ctx)?);
            self.f.flame = Some(alloc(&self.ctx)?);
        }
        self.emitters = es;
        self.bodies = bodies;
        self.covers = covers;
        Ok(())
    }

    /// Fuel and flame from now on (zeroed the first time; as the CPU's `activate_fire`).
    pub fn activate_fire(&mut self) {
        if self.fire_active {
            return;
        }
        let n = self.cells();
        if let (Some(fu), Some(fl)) = (&self.f.fuel, &self.f.flame) {
            self.fill(fu, n, 0.0);
            self.fill(fl, n, 0.0);
            self.fire_active = true;
            self.temp_active = true;
        }
    }

    /// Adds smoke and pushes the fluid inside a ball (as the CPU's `add_density_at` and
    /// `add_velocity_at`: the first error is returned, both are tried).
    pub fn paint(
        &mut self,
        center: [f32; 3],
        radius: f32,
        density: f32,
        velocity: [f32; 3],
    ) -> Result<(), SimError> {
        let ball = plume_core::sim::Shape::Sphere { center, radius };
        let r1 = cover::check_paint_density(center, radius, density);
        let r2 = cover::check_paint_velocity(center, radius, velocity);
        if r1.is_ok() || r2.is_ok() {
            // One coverage list serves the smoke and the push.
            let c = self
                .upload(&cover::shape_cover(&self.grid, &ball))
                .map_err(SimError::InvalidParameter)?;
            if r1.is_ok() {
                self.apply(&c.0[0], &self.f.density, 2, density);
                self.fill_solid_cells(&self.f.density, 0.0);
            }
            if r2.is_ok() {
                for (a, v) in velocity.into_iter().enumerate() {
                    self.apply(&c.0[a + 1], &self.f.vel[a], 0, v);
                }
                self.enforce_boundaries();
            }
        }
        r1.and(r2)
    }

    /// Σ density·h³.
    pub fn total_density(&self) -> f64 {
        let n = self.cells();
        let r = self.reduce(0, &self.f.density, n, true);
        r.map_or(0.0, |r| r.sum) * f64::from(self.grid.h).powi(3)
    }

    /// Counts a read-back of a whole field, `bytes` long.
    pub fn count_field(&self, bytes: usize) {
        crate::cost::wait();
        let mut t = self.transfers.get();
        t.field_reads += 1;
        t.field_bytes += bytes as u64;
        self.transfers.set(t);
    }

    /// Forgets what is known of the faces (the largest speed, the gradient's maxima): they
    /// changed.
    pub fn faces_changed(&mut self) {
        self.vmax = None;
        self.region.faces_top = false;
    }

    /// Counts a read-back of a few numbers (a reduction's partial results), `bytes` long.
    pub fn count_small(&self, bytes: usize) {
        crate::cost::wait();
        let mut t = self.transfers.get();
        t.small_reads += 1;
        t.small_bytes += bytes as u64;
        self.transfers.set(t);
    }

    /// Reads back the first `n` values of a field.
    pub fn read(&self, f: &Field, n: usize) -> Vec<f32> {
        self.count_field(4 * n);
        f.slice(0..n)
            .and_then(|s| s.read().ok())
            .unwrap_or_else(|| vec![0.0; n])
    }

    /// Every field and the clock, read back.
    pub fn state(&self) -> FieldState {
        let d = self.grid.dims;
        let n = d.cells();
        FieldState {
            time: self.time,
            steps: self.steps,
            density: self.read(&self.f.density, n),
            temperature: self.read(&self.f.temperature, n),
            fuel: self
                .fire_field(0)
                .map_or_else(Vec::new, |f| self.read(f, n)),
            flame: self
                .fire_field(1)
                .map_or_else(Vec::new, |f| self.read(f, n)),
            velocity: [0, 1, 2].map(|a| self.read(&self.f.vel[a], d.faces(a).cells())),
            pressure: self.read(&self.f.pressure, n),
        }
    }

    /// Replaces every field and the clock.
    pub fn load_state(&mut self, s: &FieldState) -> Result<(), SimError> {
        s.check(&self.grid)?;
        // (the active region's cut-offs start again, as the CPU's)
        self.region.forget();
        let d = self.grid.dims;
        let n = d.cells();
        let bad = |what: &str| SimError::InvalidParameter(format!("{what} has the wrong length"));
        let put = |f: &Field, v: &[f32], len: usize, what: &str| -> Result<(), SimError> {
            if v.len() != len {
                return Err(bad(what));
            }
            f.slice(0..len).ok_or_else(|| bad(what))?.write(v);
            Ok(())
        };
        put(&self.f.density, &s.density, n, "density")?;
        put(&self.f.temperature, &s.temperature, n, "temperature")?;
        put(&self.f.pressure, &s.pressure, n, "pressure")?;
        for a in 0..3 {
            put(
                &self.f.vel[a],
                &s.velocity[a],
                d.faces(a).cells(),
                "velocity",
            )?;
        }
        if !s.fuel.is_empty() || !s.flame.is_empty() {
            self.activate_fire();
            let (Some(fu), Some(fl)) = (&self.f.fuel, &self.f.flame) else {
                return Err(SimError::InvalidParameter(
                    "fuel and flame given to a solver whose emitters burn nothing".into(),
                ));
            };
            put(fu, &s.fuel, n, "fuel")?;
            put(fl, &s.flame, n, "flame")?;
        }
        self.temp_active = true;
        self.faces_changed();
        self.time = s.time;
        self.steps = s.steps;
        Ok(())
    }

    /// Fuel (0) or flame (1) while something burns.
    pub fn fire_field(&self, which: usize) -> Option<&Field> {
        if !self.fire_active {
            return None;
        }
        if which == 0 {
            self.f.fuel.as_ref()
        } else {
            self.f.flame.as_ref()
        }
    }

    /// Runs one stage by its name as a sub-step of `dt` would.
    pub fn run_stage(&mut self, name: &str, dt: f32) -> bool {
        let Some((_, _, f)) = Engine::stages().into_iter().find(|s| s.0 == name) else {
            return false;
        };
        self.sub_dt = dt;
        self.stage_may_move_faces(name);
        let mut stats = StepStats::default();
        f(self, &mut stats);
        self.hold_pending_limit();
        self.sub_dt = self.params.dt;
        true
    }

    /// A frame of the selected fields: only those are read back.
    pub fn frame(&self, select: Select) -> Frame {
        let grid = self.grid;
        let d = grid.dims;
        let n = d.cells();
        let need_vel = select.velocity || select.divergence;
        let vel: Vec<Vec<f32>> = if need_vel {
            (0..3)
                .map(|a| self.read(&self.f.vel[a], d.faces(a).cells()))
                .collect()
        } else {
            vec![Vec::new(); 3]
        };
        let faces = [&vel[0][..], &vel[1][..], &vel[2][..]];
        Frame {
            grid,
            step: self.steps,
            time: self.time,
            density: select.density.then(|| self.read(&self.f.density, n)),
            temperature: select
                .temperature
                .then(|| self.read(&self.f.temperature, n)),
            fuel: select.fuel.then(|| {
                self.fire_field(0)
                    .map_or_else(|| vec![0.0; n], |f| self.read(f, n))
            }),
            flame: select.flame.then(|| {
                self.fire_field(1)
                    .map_or_else(|| vec![0.0; n], |f| self.read(f, n))
            }),
            velocity: select.velocity.then(|| cell_velocity(&grid, faces)),
            pressure: select.pressure.then(|| self.read(&self.f.pressure, n)),
            divergence: select.divergence.then(|| divergence(&grid, faces)),
            solid: if select.solid {
                self.obs.solids.as_ref().map(|s| s.host.mask.clone())
            } else {
                None
            },
            collision: None,
            emitters: emitter_marks(&self.emitters),
            streamlines: None,
        }
    }
}
