//! The viewer's 3D view fed by the GPU solver without a read-back: the solver's context
//! shares objects with the renderer's, its kernels write the volume into the renderer's
//! textures, and the viewer's own loop (the simulation thread, the hand-over, the renderer)
//! draws them. Runs on Mesa's llvmpipe in CI (a test that cannot get a context fails).

use plume::backend::Backend;
use plume::render::context;
use plume::render::volume::{flame_light, VolumeRenderer};
use plume::scene::Scene;
use plume::sim::Simulation;
use plume::viewer::gpu_feed::Volume;
use plume::viewer::gpu_view;
use plume::viewer::sim_thread::{SimCommand, SimThread, Snapshot};
use plume::viewer::state::UiState;
use plume_core::frame::Select;
use std::time::{Duration, Instant};

fn shared() -> (
    std::rc::Rc<glium::backend::Context>,
    plume::render::share::ShareGroup,
) {
    context::headless_shared().unwrap_or_else(|e| {
        panic!("no headless OpenGL context: {e}. The GPU tests need Mesa's EGL and llvmpipe.")
    })
}

/// The viewer's loop, one frame: serve the hand-over, take a snapshot, show it. Returns the
/// step of the snapshot taken, if one was.
fn frame(
    r: &mut VolumeRenderer,
    ctx: &std::rc::Rc<glium::backend::Context>,
    sim: &SimThread,
    ui: &UiState,
) -> Option<Snapshot> {
    gpu_view::serve(r, ctx, sim, ui).expect("serve");
    let snap = sim.take_latest()?;
    gpu_view::show(r, ctx, sim, &snap, ui.scene.render.kelvin_per_unit).expect("show");
    Some(snap)
}

/// Steps the paused simulation once and runs the window's loop until it shows that step
/// from a shared set; returns the snapshot's volume and transfers.
fn step_and_show(
    r: &mut VolumeRenderer,
    ctx: &std::rc::Rc<glium::backend::Context>,
    sim: &SimThread,
    ui: &UiState,
    step: u64,
) -> Snapshot {
    sim.send(SimCommand::StepOnce);
    let t = Instant::now();
    loop {
        if let Some(s) = frame(r, ctx, sim, ui) {
            if s.frame.step >= step && matches!(s.volume, Volume::Shared { .. }) {
                return s;
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "step {step} never shown from a shared set"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn the_view_draws_the_solvers_textures_with_no_field_read_back_and_no_upload() {
    let (ctx, group) = shared();
    let scene = Scene::default().with_resolution(24);
    let mut r = VolumeRenderer::new(&ctx).expect("renderer");
    let sim = SimThread::spawn_shared(scene.clone(), Backend::Gpu, false, Some(group), || {})
        .expect("simulation thread on the GPU");
    let ui = UiState::new(&scene, false);
    let steps = 12;
    let mut last = None;
    for s in 1..=steps {
        last = Some(step_and_show(&mut r, &ctx, &sim, &ui, s));
    }
    assert!(r.draws_shared());
    assert_eq!(r.uploads, 0, "the renderer uploaded a texture");
    // The transfers the last snapshot reported: no whole field crossed the bus.
    let last = last.expect("a snapshot");
    assert!(last.frame.density.is_none() && last.frame.velocity.is_none());
    let transfers = last.transfers.expect("the GPU solver's transfers");
    assert_eq!(transfers.field_reads, 0, "{transfers:?}");
    assert_eq!(transfers.field_bytes, 0, "{transfers:?}");
    assert!(transfers.publishes >= steps, "{transfers:?}");
    // Only the reductions' few numbers came back: well under one field a step.
    let field = 4 * scene.dims().cells() as u64;
    assert!(transfers.small_bytes < field * steps / 4, "{transfers:?}");

    // What the view draws is the solver's density: the middle slice of the shown texture
    // against a CPU run of the same steps (the backends agree within 1e-3 after 20 steps).
    let d = scene.dims();
    let mut cpu = scene.build().expect("cpu");
    for _ in 0..steps {
        cpu.try_step().expect("cpu step");
    }
    let f = Simulation::frame(&cpu, Select::ALL);
    // The z-slice with the most smoke.
    let slice_sum = |z: usize| {
        f.density()[z * d.nx * d.ny..(z + 1) * d.nx * d.ny]
            .iter()
            .sum::<f32>()
    };
    let z = (0..d.nz)
        .max_by(|&a, &b| slice_sum(a).total_cmp(&slice_sum(b)))
        .unwrap_or(0);
    let drawn = r.read_slice(&ctx, z).expect("slice of the shown texture");
    let want = &f.density()[z * d.nx * d.ny..(z + 1) * d.nx * d.ny];
    let top = want.iter().fold(0.0f32, |m, x| m.max(*x));
    let diff = want
        .iter()
        .zip(&drawn)
        .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
    assert!(top > 1e-3, "no smoke in slice {z}: {top}");
    assert!(
        diff <= 1e-3 * top,
        "drawn {diff} off the CPU's (largest {top})"
    );

    // The raymarch steps over the empty bricks of the set drawn: worked out on the card
    // from the solver's texture, as the rule says (a sample in a brick reads its voxels and
    // one beyond each face; one above 0 is something to see).
    assert!(
        r.skips_empty(),
        "the view takes every sample of the solver's textures"
    );
    let (bricks, b) = r.read_bricks(&ctx).expect("read").expect("bricks");
    let drawn: Vec<f32> = (0..d.nz)
        .flat_map(|z| r.read_slice(&ctx, z).expect("slice"))
        .collect();
    let n = plume::render::occupancy::BRICK;
    let mut seen = 0;
    for k in 0..b.nz {
        for j in 0..b.ny {
            for i in 0..b.nx {
                let span =
                    |c: usize, len: usize| (c * n).saturating_sub(1)..=((c + 1) * n).min(len - 1);
                let any = span(k, d.nz).any(|z| {
                    span(j, d.ny).any(|y| span(i, d.nx).any(|x| drawn[d.idx(x, y, z)] > 0.0))
                });
                assert_eq!(
                    bricks[b.idx(i, j, k)],
                    f32::from(u8::from(any)),
                    "brick {i} {j} {k}"
                );
                seen += usize::from(any);
            }
        }
    }
    assert!(seen > 0, "no brick holds the smoke");

    // Opening the slice view asks frames for every field: then they are read back, and the
    // count shows it.
    let mut ui2 = ui.clone();
    ui2.slice.visible = true;
    let before = transfers.field_reads;
    let s = step_and_show(&mut r, &ctx, &sim, &ui2, steps + 1);
    assert!(s.frame.density.is_some() && s.frame.velocity.is_some());
    let after = s.transfers.expect("gpu").field_reads;
    assert!(after > before, "{before} → {after}");
    assert_eq!(r.uploads, 0);
}

#[test]
fn the_flame_light_summed_on_the_card_matches_the_renderers_own() {
    let (ctx, group) = shared();
    let scene = Scene::preset("campfire")
        .expect("campfire")
        .with_resolution(24);
    let mut g = plume::backend::gpu_in(&scene, Some(&group)).expect("gpu solver in the group");
    for _ in 0..15 {
        g.step().expect("step");
    }
    let dims = scene.dims();
    let tex = |f| {
        glium::texture::Texture3d::empty_with_format(
            &ctx,
            f,
            glium::texture::MipmapsOption::NoMipmap,
            dims.nx as u32,
            dims.ny as u32,
            dims.nz as u32,
        )
        .expect("texture")
    };
    let density = tex(glium::texture::UncompressedFloatFormat::F32);
    let heat = tex(glium::texture::UncompressedFloatFormat::F32F32);
    ctx.finish();
    use glium::GlObject;
    let textures = plume_gpu::VolumeTextures {
        dims,
        density: density.get_id(),
        heat: Some(heat.get_id()),
    };
    let kelvin = scene.render.kelvin_per_unit;
    // SAFETY: both textures live in the solver's share group, of the grid's size and the
    // formats asked, until the end of this test.
    let sums = unsafe { g.publish(textures, kelvin) }
        .expect("published")
        .expect("the campfire burns");
    let h = scene.grid.size / dims.as_array().into_iter().max().unwrap_or(1) as f32;
    let on_card = plume::render::volume::FlameLight::from_sums(&sums, g.grid().h).expect("glows");
    let f = g.frame(Select::ALL);
    let table = plume_core::blackbody::table();
    let own = flame_light(
        &f.grid,
        f.temperature.as_deref().expect("temperature"),
        f.flame.as_deref().expect("flame"),
        &table,
        kelvin,
    )
    .expect("glows on the CPU too");
    let rel = |a: f32, b: f32| (a - b).abs() / b.abs().max(1e-6);
    for a in 0..3 {
        assert!(
            rel(on_card.power[a], own.power[a]) < 1e-4,
            "{on_card:?} {own:?}"
        );
        assert!(
            (on_card.center[a] - own.center[a]).abs() < 1e-4 * h.max(1.0),
            "{on_card:?} {own:?}"
        );
    }
    assert!(
        rel(on_card.spread2, own.spread2) < 1e-3,
        "{on_card:?} {own:?}"
    );
}

/// `plume render` with `--backend b`: the image's pixels (RGBA) and the report.
fn render(
    b: &str,
    scene: &str,
    out: &std::path::Path,
    extra: &[&str],
) -> (Vec<u8>, serde_json::Value) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["render", "--backend", b, "--scene", scene, "--size", "24"])
        .args(extra)
        .args([
            "--steps", "30", "--width", "160", "--height", "120", "--json", "--out",
        ])
        .arg(out)
        .output()
        .expect("plume render");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    let dec = png::Decoder::new(std::fs::File::open(out).expect("image"));
    let mut r = dec.read_info().expect("PNG");
    let mut buf = vec![0; r.output_buffer_size()];
    r.next_frame(&mut buf).expect("pixels");
    (buf, j)
}

#[test]
fn render_draws_the_gpu_solvers_textures_as_the_cpu_frame_would_look() {
    let dir = std::env::temp_dir().join(format!("plume-gpu-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // The plume, and the campfire (its heat texture and the flame's light summed on the card).
    for scene in ["plume", "campfire"] {
        let (cpu, jc) = render("cpu", scene, &dir.join(format!("{scene}-cpu.png")), &[]);
        let (gpu, jg) = render("gpu", scene, &dir.join(format!("{scene}-gpu.png")), &[]);
        // The same view with the smoke made invisible: what "nothing drawn" looks like.
        let none = ["--density-scale", "0"];
        let (empty, _) = render("cpu", scene, &dir.join(format!("{scene}-empty.png")), &none);
        assert!(jc["upload_ms"].as_f64().expect("cpu upload") > 0.0, "{jc}");
        assert_eq!(jg["upload_ms"], 0.0, "nothing uploaded from the GPU: {jg}");
        assert_eq!(cpu.len(), gpu.len());
        // The smoke's pixels: where the picture differs from the empty view.
        let px = |v: &[u8]| v.chunks(4).map(|p| [p[0], p[1], p[2]]).collect::<Vec<_>>();
        let (cpu, gpu, empty) = (px(&cpu), px(&gpu), px(&empty));
        let far = |a: [u8; 3], b: [u8; 3]| (0..3).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
        let smoke: Vec<usize> = (0..gpu.len())
            .filter(|&i| far(gpu[i], empty[i]) > 8)
            .collect();
        let off: f64 = smoke
            .iter()
            .map(|&i| f64::from(far(gpu[i], cpu[i])))
            .sum::<f64>()
            / smoke.len().max(1) as f64;
        eprintln!(
            "{scene}: {} smoke pixels, GPU off the CPU by {off} levels there",
            smoke.len()
        );
        assert!(smoke.len() > 100, "{scene}: {} smoke pixels", smoke.len());
        // The backends agree within 1e-3 after 20 steps: the pictures within a level or two.
        assert!(
            off < 2.0,
            "{scene}: GPU and CPU pictures differ by {off} levels"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
