#!/usr/bin/env python3
"""Render a list of questions to speech-like audio: burst's example GPU workload.

A toy stand-in for a diffusion text-to-speech model, in the standard library
only: a wavetable "voice model" cached on the persistent volume, a formant
synthesizer driven by the letters of each question, and an iterative
denoising loop that refines a noisy start into the clip.

    python3 render.py --check
    python3 render.py --questions questions.txt --out out [--jobs N]

Environment: BURST_VOLUME (required), TTS_SAMPLE_RATE (16000), TTS_STEPS (8).
"""

import argparse
import array
import hashlib
import io
import json
import math
import multiprocessing
import os
import random
import sys
import tempfile
import time
import wave
import zlib
from datetime import datetime, timezone

MODEL_NAME = "voice-model-v1"
MODEL_BYTES = 8 * 1024 * 1024
MODEL_SEED = 20240501
TABLE_LEN = 2048                      # samples per wavetable (one pitch period)
TABLE_MASK = TABLE_LEN - 1
TABLE_F0 = 125.0                      # pitch the tables were designed at, Hz
VARIANTS = 4                          # timbre variants per sound class
FORMANTS = {                          # sound class -> (freq Hz, bandwidth Hz, gain)
    "a": ((730, 90, 1.0), (1090, 110, 0.5), (2440, 160, 0.25)),
    "e": ((530, 80, 1.0), (1840, 120, 0.5), (2480, 160, 0.25)),
    "i": ((270, 60, 1.0), (2290, 120, 0.4), (3010, 180, 0.25)),
    "o": ((570, 80, 1.0), (840, 100, 0.6), (2410, 160, 0.2)),
    "u": ((300, 60, 1.0), (870, 100, 0.4), (2240, 160, 0.15)),
    "schwa": ((500, 80, 1.0), (1500, 120, 0.4), (2500, 160, 0.2)),
    "nasal": ((250, 60, 1.0), (1200, 150, 0.1), (2300, 200, 0.05)),
    "liquid": ((360, 70, 1.0), (1300, 120, 0.4), (1700, 140, 0.3)),
}
CLASSES = sorted(FORMANTS)
VOWELS = {"a", "e", "i", "o", "u"}
TABLE_SAMPLES = len(CLASSES) * VARIANTS * TABLE_LEN

PAUSE_MS = {" ": 30, ",": 160, ";": 160, ":": 160, "-": 60, ".": 250, "!": 250, "?": 250}
GAP_BETWEEN_CLIPS_S = 0.3
DEFAULT_SAMPLE_RATE = 16000
DEFAULT_STEPS = 8


class RenderError(Exception):
    """A problem the user can fix: printed as one line, exit status 1."""


def log(message):
    """Print one progress line, flushed so burst streams it live."""
    print(message, flush=True)


def utc_now():
    """The current UTC time as an ISO 8601 string."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sha256_file(path):
    """Hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_atomic(path, data):
    """Write bytes to a temp name in the same directory, then rename into place."""
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# --- environment -----------------------------------------------------------

def env_int(name, default, low, high):
    """An integer environment variable within [low, high]."""
    raw = os.environ.get(name, "").strip() or str(default)
    try:
        value = int(raw)
    except ValueError:
        raise RenderError(f"{name}={raw!r} is not an integer") from None
    if not low <= value <= high:
        raise RenderError(f"{name}={value} is out of range ({low}..{high})")
    return value


def sample_rate():
    """Output sample rate in Hz, from TTS_SAMPLE_RATE."""
    return env_int("TTS_SAMPLE_RATE", DEFAULT_SAMPLE_RATE, 8000, 48000)


def denoise_steps():
    """Denoising passes per clip, from TTS_STEPS."""
    return env_int("TTS_STEPS", DEFAULT_STEPS, 1, 1000)


def volume_root():
    """$BURST_VOLUME, which must name an existing directory."""
    root = os.environ.get("BURST_VOLUME", "").strip()
    if not root:
        raise RenderError("BURST_VOLUME is not set (burst sets it on every pod; "
                          "to run by hand: BURST_VOLUME=$(mktemp -d) python3 render.py ...)")
    if not os.path.isdir(root):
        raise RenderError(f"BURST_VOLUME={root} is not a directory")
    return root


def check_volume_writable():
    """The volume exists and a file can be created in it."""
    root = volume_root()
    try:
        with tempfile.NamedTemporaryFile(dir=root, prefix=".burst-check-"):
            pass
    except OSError as e:
        raise RenderError(f"BURST_VOLUME={root} is not writable: {e.strerror}") from None
    return f"BURST_VOLUME={root} (writable)"


def check_python():
    """The interpreter is new enough."""
    version = ".".join(map(str, sys.version_info[:3]))
    if sys.version_info < (3, 8):
        raise RenderError(f"python {version} is too old (need >= 3.8)")
    return f"python {version} (>= 3.8)"


def run_check():
    """Run every environment check, one line each; return the exit status."""
    checks = [
        check_python,
        check_volume_writable,
        lambda: f"TTS_SAMPLE_RATE={sample_rate()} Hz",
        lambda: f"TTS_STEPS={denoise_steps()} denoising steps",
    ]
    failures = 0
    for check in checks:
        try:
            log(f"ok    {check()}")
        except RenderError as e:
            failures += 1
            log(f"FAIL  {e}")
    if failures:
        print(f"error: environment check failed ({failures} problem(s) above)", file=sys.stderr)
        return 1
    log("check passed")
    return 0


# --- the volume: run counter and voice model cache -------------------------

def record_run(root):
    """Append this run to $BURST_VOLUME/runs.log and return its number."""
    path = os.path.join(root, "runs.log")
    try:
        with open(path) as f:
            previous = sum(1 for line in f if line.strip())
    except FileNotFoundError:
        previous = 0
    number = previous + 1
    with open(path, "a") as f:
        f.write(f"{utc_now()} render run #{number}\n")
    return number


def build_model():
    """Deterministically generate the voice model: formant wavetables + a noise bank."""
    rng = random.Random(MODEL_SEED)
    sine = [math.sin(2 * math.pi * i / TABLE_LEN) for i in range(TABLE_LEN)]
    samples = array.array("h")
    for name in CLASSES:
        for _ in range(VARIANTS):
            samples.extend(make_table(FORMANTS[name], sine, rng))
    noise_bytes = MODEL_BYTES - 2 * len(samples)
    if sys.byteorder == "big":
        samples.byteswap()
    return samples.tobytes() + rng.getrandbits(8 * noise_bytes).to_bytes(noise_bytes, "little")


def make_table(formants, sine, rng):
    """One pitch period whose harmonics follow the formant peaks, with seeded jitter."""
    acc = [0.0] * TABLE_LEN
    for h in range(1, int(4000 / TABLE_F0) + 1):
        freq = h * TABLE_F0
        amp = sum(g / (1 + ((freq - f) / bw) ** 2) for f, bw, g in formants) / math.sqrt(h)
        amp *= 1 + rng.uniform(-0.15, 0.15)
        shift = rng.randrange(TABLE_LEN)
        acc = [a + amp * sine[(i * h + shift) & TABLE_MASK] for i, a in enumerate(acc)]
    peak = max(abs(a) for a in acc)
    return [int(a * 32000 / peak) for a in acc]


def ensure_model(root):
    """Return the cached model's path, building it on first use or if corrupt."""
    cache = os.path.join(root, "cache")
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, MODEL_NAME + ".bin")
    sum_path = os.path.join(cache, MODEL_NAME + ".sha256")
    problem = cached_model_problem(path, sum_path)
    if problem is None:
        built = datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc)
        log(f"voice model: cached on volume (built {built:%Y-%m-%dT%H:%M:%SZ}, reused)")
        return path
    size = f"{MODEL_BYTES / 2**20:.1f} MiB"
    if problem == "absent":
        log(f"voice model: not cached, building {size} (first run on this volume)")
    else:
        log(f"voice model: cached copy {problem}, rebuilding {size}")
    data = build_model()
    write_atomic(path, data)
    write_atomic(sum_path, f"{hashlib.sha256(data).hexdigest()}  {MODEL_NAME}.bin\n".encode())
    return path


def cached_model_problem(path, sum_path):
    """None if the cached model verifies, else why not ('absent', 'is corrupt', ...)."""
    if not os.path.exists(path):
        return "absent"
    try:
        with open(sum_path) as f:
            expected = f.read().split()[0]
    except (OSError, IndexError):
        return "has no recorded sha256"
    if sha256_file(path) != expected:
        return "is corrupt (sha256 mismatch)"
    return None


def load_model(path):
    """Return (wavetables as float lists, noise bank as an int16 array)."""
    with open(path, "rb") as f:
        data = f.read()
    pcm = array.array("h", data)
    if sys.byteorder == "big":
        pcm.byteswap()
    tables = {}
    for c, name in enumerate(CLASSES):
        for v in range(VARIANTS):
            start = (c * VARIANTS + v) * TABLE_LEN
            tables[name, v] = [s / 32768 for s in pcm[start:start + TABLE_LEN]]
    return tables, pcm[TABLE_SAMPLES:]


# --- synthesis --------------------------------------------------------------

def letter_sounds(ch):
    """The (sound, milliseconds) pairs one character turns into."""
    if ch in VOWELS:
        return [(ch, 70)]
    if ch == "y" or ch.isdigit():
        return [("i" if ch == "y" else "o", 70)]
    if ch in "mn":
        return [("nasal", 45)]
    if ch in "lrw":
        return [("liquid", 45)]
    if ch in "bdg":
        return [("gap", 15), ("schwa", 35)]
    if ch in "ptkq":
        return [("gap", 25), ("burst", 20)]
    if ch in "sfhxc":
        return [("hiss", 55)]
    if ch in "vzj":
        return [("buzz", 50)]
    return [("gap", PAUSE_MS[ch])] if ch in PAUSE_MS else []


def text_sounds(text):
    """The (sound, milliseconds) pairs for a stretch of text."""
    return [s for ch in text for s in letter_sounds(ch)]


def plan_segments(text, sr):
    """Split text into (sound, n_samples, start_s) segments.

    Also returns the start time of the last word (for question intonation)
    and the total duration in seconds.
    """
    head, space, last = text.lower().rstrip().rpartition(" ")
    body, tail = text_sounds(head + space), text_sounds(last)
    while tail and tail[-1][0] == "gap":
        tail.pop()
    sounds = [("gap", 40)] + body + tail + [("gap", 40)]
    segments, t, word_start = [], 0.0, 0.0
    for i, (sound, ms) in enumerate(sounds):
        if i == 1 + len(body):
            word_start = t
        n = sr * ms // 1000
        segments.append((sound, n, t))
        t += n / sr
    return segments, word_start, t


def pitch_at(t, total, question, word_start):
    """Declining pitch over the utterance; questions rise through the last word."""
    f0 = 140 - 35 * t / total
    if question and t > word_start:
        u = (t - word_start) / (total - word_start)
        f0 *= 1 + 0.5 * u * u
    return f0


class Synth:
    """Turns text into a clean target waveform using the voice model."""

    def __init__(self, tables, noise, sr):
        self.tables, self.noise, self.sr = tables, noise, sr
        self.cursor = 0                   # read position in the noise bank
        self.phase = 0.0                  # wavetable phase, continuous across segments

    def noise_samples(self, n, gain):
        """The next n samples of the model's noise bank, scaled by gain."""
        start = self.cursor % len(self.noise)
        chunk = self.noise[start:start + n]
        if len(chunk) < n:
            chunk += self.noise[:n - len(chunk)]
        self.cursor += n
        k = gain / 32768
        return [s * k for s in chunk]

    def tone(self, name, variant, n, f_start, f_end):
        """n samples of a wavetable gliding from f_start to f_end, phase-continuous."""
        table = self.tables[name, variant]
        a = f_start * TABLE_LEN / self.sr
        b = (f_end - f_start) * TABLE_LEN / self.sr / (2 * n)
        p = self.phase
        out = [table[int(p + i * (a + b * i)) & TABLE_MASK] for i in range(n)]
        self.phase = (p + n * (a + b * n)) % TABLE_LEN
        return out

    def segment(self, sound, n, index, f_start, f_end):
        """Samples for one planned segment."""
        if sound == "gap" or n == 0:
            return [0.0] * n
        if sound == "hiss":
            x = self.noise_samples(n + 1, 0.12)
            return fade([b - a for a, b in zip(x, x[1:])])
        if sound == "burst":
            return fade([s * (1 - i / n) for i, s in enumerate(self.noise_samples(n, 0.3))])
        if sound == "buzz":
            voice = self.tone("schwa", index % VARIANTS, n, f_start, f_end)
            return fade([0.5 * v + s for v, s in zip(voice, self.noise_samples(n, 0.08))])
        gain = 1.0 if sound in VOWELS else 0.6
        return fade([gain * v for v in self.tone(sound, index % VARIANTS, n, f_start, f_end)])

    def target(self, text):
        """The clean waveform for one line of text."""
        self.cursor = zlib.crc32(text.encode("utf-8"))
        self.phase = 0.0
        segments, word_start, total = plan_segments(text, self.sr)
        question = text.rstrip().endswith("?")
        out = []
        for i, (sound, n, t) in enumerate(segments):
            f_start = pitch_at(t, total, question, word_start)
            f_end = pitch_at(t + n / self.sr, total, question, word_start) * 0.97
            out.extend(self.segment(sound, n, i, f_start, f_end))
        return out


def fade(x, width=48):
    """Ramp the first and last `width` samples to avoid clicks."""
    m = min(width, len(x) // 2)
    for i in range(m):
        g = i / m
        x[i] *= g
        x[-1 - i] *= g
    return x


def denoise(target, start, steps):
    """Refine a noisy start toward the target, one smoothing pass per step.

    Each step keeps x = target + residual and shrinks the residual with a
    3-tap low-pass, so after `steps` passes it sits about 60 dB down.
    """
    gain = 0.001 ** (1 / steps) / 4
    x = start
    for _ in range(steps):
        r = [a - b for a, b in zip(x, target)]
        r = [r[0]] + r + [r[-1]]
        x = [t + gain * (a + b + b + c) for t, a, b, c in zip(target, r, r[1:], r[2:])]
    return x


def to_wav_bytes(x, sr):
    """Peak-normalise floats to 16-bit mono PCM and wrap them in a WAV container."""
    peak = max(map(abs, x), default=0.0)
    scale = 0.9 * 32767 / peak if peak else 0.0
    pcm = array.array("h", [int(v * scale) for v in x])
    if sys.byteorder == "big":
        pcm.byteswap()
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        w.writeframes(pcm.tobytes())
    return buf.getvalue()


# --- the render: workers, progress, assembly -------------------------------

_worker = {}


def init_worker(model_path, sr, steps):
    """Load the voice model once per worker process."""
    tables, noise = load_model(model_path)
    _worker.update(synth=Synth(tables, noise, sr), sr=sr, steps=steps)


def render_clip(task):
    """Synthesise one question to clips/qNNN.wav; return its manifest entry."""
    index, question, path, rel = task
    synth, sr = _worker["synth"], _worker["sr"]
    target = synth.target(question)
    start = synth.noise_samples(len(target), 1.0)
    data = to_wav_bytes(denoise(target, start, _worker["steps"]), sr)
    write_atomic(path, data)
    return index, {
        "file": rel,
        "question": question,
        "duration_s": round(len(target) / sr, 3),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def read_questions(path):
    """Non-blank lines of the questions file."""
    try:
        with open(path, encoding="utf-8") as f:
            questions = [line.strip() for line in f if line.strip()]
    except FileNotFoundError:
        raise RenderError(f"questions file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RenderError(f"cannot read questions file {path}: {e}") from None
    if not questions:
        raise RenderError(f"questions file is empty: {path}")
    return questions


def make_tasks(questions, out):
    """One (index, text, path, relative name) task per question; clears stale clips."""
    clips = os.path.join(out, "clips")
    os.makedirs(clips, exist_ok=True)
    for name in os.listdir(clips):
        if name.startswith("q") and name.endswith(".wav"):
            os.unlink(os.path.join(clips, name))
    width = max(3, len(str(len(questions))))
    tasks = []
    for i, q in enumerate(questions):
        rel = f"clips/q{i + 1:0{width}d}.wav"
        tasks.append((i, q, os.path.join(out, rel), rel))
    return tasks


def render_all(tasks, jobs, init_args, started):
    """Render every task over `jobs` processes; return manifest entries in order."""
    if jobs == 1:
        init_worker(*init_args)
        return collect(map(render_clip, tasks), len(tasks), started)
    with multiprocessing.Pool(jobs, initializer=init_worker, initargs=init_args) as pool:
        return collect(pool.imap_unordered(render_clip, tasks), len(tasks), started)


def collect(results, total, started):
    """Gather (index, entry) results, logging progress about every 10%."""
    entries = [None] * total
    marks = {math.ceil(total * k / 10) for k in range(1, 11)}
    for done, (index, entry) in enumerate(results, 1):
        entries[index] = entry
        if done in marks:
            log(f"rendered {done}/{total} clips ({done * 100 // total}%), "
                f"{time.monotonic() - started:.1f} s elapsed")
    return entries


def assemble(out, entries, sr):
    """Concatenate the clips, with silence between them, into out/render.wav."""
    path = os.path.join(out, "render.wav")
    tmp = os.path.join(out, f".render.wav.{os.getpid()}.tmp")
    try:
        frames = concatenate(tmp, [os.path.join(out, e["file"]) for e in entries], sr)
        info = {"file": "render.wav", "sha256": sha256_file(tmp), "size_bytes": os.path.getsize(tmp)}
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return info, frames / sr


def concatenate(path, clips, sr):
    """Write the clips into one WAV with silence between them; return its frame count."""
    silence = bytes(2 * int(sr * GAP_BETWEEN_CLIPS_S))
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(sr)
        for i, clip_path in enumerate(clips):
            if i:
                w.writeframes(silence)
            with wave.open(clip_path, "rb") as clip:
                w.writeframes(clip.readframes(clip.getnframes()))
        return w.getnframes()


def render(args):
    """The whole render: volume bookkeeping, model, clips, render.wav, manifest."""
    questions = read_questions(args.questions)
    sr, steps = sample_rate(), denoise_steps()
    jobs = args.jobs or os.cpu_count() or 1
    root = volume_root()
    started = time.monotonic()
    log(f"volume: run #{record_run(root)} on this volume")
    model_path = ensure_model(root)
    log(f"render: {len(questions)} questions, {steps} denoising steps, {sr} Hz, {jobs} worker(s)")
    tasks = make_tasks(questions, args.out)
    entries = render_all(tasks, jobs, (model_path, sr, steps), started)
    info, duration = assemble(args.out, entries, sr)
    manifest = {
        "sample_rate": sr,
        "denoising_steps": steps,
        "voice_model": MODEL_NAME,
        "clip_count": len(entries),
        "total_duration_s": round(duration, 3),
        "render": info,
        "clips": entries,
    }
    write_atomic(os.path.join(args.out, "manifest.json"), (json.dumps(manifest, indent=2) + "\n").encode())
    elapsed = time.monotonic() - started
    log(f"done: {len(entries)} clips, {duration:.1f} s of audio in {elapsed:.1f} s "
        f"({duration / elapsed:.0f}x realtime); wrote {os.path.join(args.out, 'render.wav')} "
        f"({info['size_bytes'] / 2**20:.1f} MiB) and manifest.json")
    return 0


def parse_args(argv):
    """Command-line options; --questions and --out unless --check."""
    p = argparse.ArgumentParser(description="Render questions to speech-like audio (burst example workload).")
    p.add_argument("--check", action="store_true", help="verify the environment and exit")
    p.add_argument("--questions", help="text file, one question per line")
    p.add_argument("--out", help="output directory (clips/, render.wav, manifest.json)")
    p.add_argument("--jobs", type=int, default=0, help="worker processes (default: all CPUs)")
    args = p.parse_args(argv)
    if not args.check and not (args.questions and args.out):
        p.error("--questions and --out are required (or use --check)")
    if args.jobs < 0:
        p.error("--jobs must be positive")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        return run_check() if args.check else render(args)
    except RenderError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
