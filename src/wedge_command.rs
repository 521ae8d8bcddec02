//! `plume wedge`: the variants of a scene run one after another on this machine, the index
//! kept current after each, the contact sheets drawn at the end. The loop
//! ([`run_local`]) is also what Python's `plume.wedge` runs without a Dask client.

use crate::cli::WedgeArgs;
use crate::export::run::Existing;
use crate::scene::Scene;
use crate::wedge::{self, Ended, Index, Job, State, Variant, Vary};
use anyhow::{bail, Context, Result};
use std::path::Path;

/// Checks `out` (made and held by [`wedge::hold`]) for an earlier wedge: none, or (with
/// `--resume`) the same wedge; returns the index to go on with. `--overwrite` starts afresh
/// (each variant's folder is then replaced by `plume run`'s rules).
#[allow(clippy::too_many_arguments)]
pub fn prepare(
    out: &Path,
    frames: u32,
    every: u32,
    existing: Existing,
    base: &Scene,
    vary: &[Vary],
    variants: &[Variant],
) -> Result<Index, String> {
    let fresh = Index::new(base, vary, variants, frames, every);
    let old = Index::load(out)?;
    match (old, existing) {
        (None, _) | (Some(_), Existing::Overwrite) => Ok(fresh),
        (Some(_), Existing::Refuse) => Err(format!(
            "{} already holds a wedge ({}): pass --resume to continue it, --overwrite to run \
             it again, or choose another folder",
            out.display(),
            wedge::INDEX
        )),
        (Some(old), Existing::Resume) => {
            let same = old.vary == fresh.vary
                && old.frames == fresh.frames
                && old.every == fresh.every
                && old.variants.len() == fresh.variants.len();
            if !same {
                return Err(format!(
                    "cannot resume the wedge in {}: its {} lists other keys, values, frames or \
                     steps between frames",
                    out.display(),
                    wedge::INDEX
                ));
            }
            Ok(old)
        }
    }
}

/// What the loop tells its caller about each variant.
pub trait Report {
    /// Variant `e` starts (`true`) or has ended (`false`; its state says how).
    fn variant(&mut self, e: &wedge::Entry, starting: bool);
    /// The per-frame watch for variant runs (stops, progress).
    fn watch(&mut self) -> &mut dyn crate::batch::Watch;
}

/// Runs every variant not yet done, one after another, keeping `index` current in
/// `job.out/wedge.json`; draws the contact sheets at the end. Returns the index; an
/// interrupted variant ends the loop (the index lists it as interrupted).
pub fn run_local(
    job: &Job,
    variants: &[Variant],
    mut index: Index,
    report: &mut dyn Report,
) -> Result<Index, String> {
    index.save(&job.out)?;
    for v in variants {
        let dir = job.out.join(&v.folder);
        let e = &mut index.variants[v.index - 1];
        let complete = wedge::frames_in(&dir) >= job.frames
            && dir.join(wedge::thumb_name(job.frames)).is_file();
        if e.state == State::Done && complete {
            continue;
        }
        e.state = State::Running;
        e.message = None;
        report.variant(e, true);
        index.save(&job.out)?;
        let mut vjob = job.clone();
        if job.existing == Existing::Refuse && dir.join("manifest.json").exists() {
            // A variant listed but not done in a wedge being resumed continues its folder.
            vjob.existing = Existing::Resume;
        }
        let ended = wedge::run_variant(&vjob, v, report.watch());
        let e = &mut index.variants[v.index - 1];
        e.frames = wedge::frames_in(&dir);
        let stop = matches!(ended, Ended::Interrupted(_));
        match ended {
            Ended::Done => e.state = State::Done,
            Ended::Interrupted(_) => e.state = State::Interrupted,
            Ended::Failed(m) => {
                e.state = State::Failed;
                e.message = Some(m);
            }
        }
        report.variant(e, false);
        index.save(&job.out)?;
        if stop {
            return Ok(index);
        }
    }
    sheets(job, &index)?;
    Ok(index)
}

/// The contact sheets of a finished wedge: `contact.png`, and one every `sheet_every` frames.
pub fn sheets(job: &Job, index: &Index) -> Result<(), String> {
    wedge::contact_sheet(&job.out, index, None)?;
    if let Some(k) = job.sheet_every {
        for n in (k..=job.frames).step_by(k as usize) {
            wedge::contact_sheet(&job.out, index, Some(n))?;
        }
    }
    Ok(())
}

struct CliReport {
    total: usize,
    signals: Signals,
    started: std::time::Instant,
}

struct Signals;

impl crate::batch::Watch for Signals {
    fn stop(&mut self) -> bool {
        crate::signals::stopped()
    }
    fn frame(&mut self, _n: u32, _time: f64) {}
}

impl Report for CliReport {
    fn variant(&mut self, e: &wedge::Entry, starting: bool) {
        let values: Vec<String> = e.values.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if starting {
            self.started = std::time::Instant::now();
        }
        match (starting, &e.state) {
            (false, State::Done) => eprintln!(
                "variant {} done: {} frames in {:.1} s",
                e.index,
                e.frames,
                self.started.elapsed().as_secs_f64()
            ),
            (true, _) => eprintln!(
                "variant {} of {} ({}): {}",
                e.index,
                self.total,
                e.folder,
                values.join(", ")
            ),
            (false, State::Failed) => eprintln!(
                "variant {} failed: {}",
                e.index,
                e.message.as_deref().unwrap_or("")
            ),
            (false, _) => {}
        }
    }
    fn watch(&mut self) -> &mut dyn crate::batch::Watch {
        &mut self.signals
    }
}

/// `plume wedge`.
pub fn wedge(mut a: WedgeArgs) -> Result<()> {
    if let Some(s) = a.scene.take() {
        if a.run.grid.scene.is_some() {
            bail!("give the scene once: as SCENE or as --scene, not both");
        }
        a.run.grid.scene = Some(s);
    }
    let opts = crate::commands::run_options(&a.run);
    opts.validate()?;
    let base = a.run.grid.scene()?;
    let variants = wedge::plan(&base, &a.vary).map_err(anyhow::Error::msg)?;
    let job = Job {
        out: a.run.out.clone(),
        frames: a.run.frames,
        opts,
        backend: a.run.grid.backend,
        sheet_every: a.sheet_every,
        existing: a.run.existing(),
    };
    crate::signals::install().context("installing the signal handlers")?;
    let _hold = wedge::hold(&job.out)?;
    let index = prepare(
        &job.out,
        job.frames,
        job.opts.every,
        job.existing,
        &base,
        &a.vary,
        &variants,
    )
    .map_err(anyhow::Error::msg)?;
    let clock = std::time::Instant::now();
    let mut report = CliReport {
        total: variants.len(),
        signals: Signals,
        started: std::time::Instant::now(),
    };
    let index = run_local(&job, &variants, index, &mut report).map_err(anyhow::Error::msg)?;
    let count = |s: State| index.variants.iter().filter(|e| e.state == s).count();
    if let Some(e) = index
        .variants
        .iter()
        .find(|e| e.state == State::Interrupted)
    {
        bail!(
            "interrupted by {} during variant {} ({}): {} of {} variants are done; wedge.json \
             lists each; --resume continues the wedge",
            crate::signals::last_name(),
            e.index,
            e.folder,
            count(State::Done),
            index.variants.len()
        );
    }
    let failed: Vec<String> = index
        .variants
        .iter()
        .filter(|e| e.state == State::Failed)
        .map(|e| format!("{} ({})", e.folder, e.message.as_deref().unwrap_or("")))
        .collect();
    println!(
        "wrote {} of {} variants to {} in {:.1} s; contact sheet {}",
        count(State::Done),
        index.variants.len(),
        job.out.display(),
        clock.elapsed().as_secs_f64(),
        job.out.join("contact.png").display()
    );
    if !failed.is_empty() {
        bail!(
            "{} variant{} failed (wedge.json lists why): {}",
            failed.len(),
            if failed.len() == 1 { "" } else { "s" },
            failed.join("; ")
        );
    }
    Ok(())
}

/// `plume free DIR`: removes the run in DIR by its manifest (what `--overwrite` removes),
/// holding the folder's lock; refuses a folder without a Plume manifest.
pub fn free(a: crate::cli::FreeArgs) -> Result<()> {
    use crate::export::folder;
    if !a.dir.is_dir() {
        bail!("{} is not a folder", a.dir.display());
    }
    let _lock = folder::FolderLock::acquire(&a.dir)?;
    let found = folder::scan(&a.dir)?;
    let manifest = match found.manifest {
        Some(Ok(m)) if m.is_plumes() => m,
        Some(Ok(_)) | Some(Err(_)) | None => bail!(
            "{} holds no manifest.json of Plume's, so nothing in it is provably Plume's; \
             nothing was removed",
            a.dir.display()
        ),
    };
    let listed = manifest.ours(&a.dir).len();
    folder::remove_run(&a.dir, &manifest)?;
    println!(
        "removed {listed} file{} and the manifest from {}",
        if listed == 1 { "" } else { "s" },
        a.dir.display()
    );
    Ok(())
}
