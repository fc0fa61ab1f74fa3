"""Physics steps: n-body gravity, heat-equation and wave stencils, cellular automata, ODE integrators.
Time loops are Python `for` loops over a step count; one model clamps its state on a data-dependent test.
Imports numpy only."""

from __future__ import annotations

import numpy as np

from . import Model, TraceSpec

BODIES = {"small": 6, "large": 150}
GRID = {"small": 8, "large": 200}


def _bodies(size: str, seed: int) -> tuple:
    n = BODIES[size]
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 3)), rng.standard_normal((n, 3)) * 0.1, rng.random(n) + 0.5


# ---- 1-2. n-body ---------------------------------------------------------------------------------------------

def nbody_step(pos, vel, mass, dt=0.01, soft=0.1):
    diff = pos[None, :, :] - pos[:, None, :]                 # n, n, 3: vector from i to j
    dist2 = (diff ** 2).sum(axis=-1) + soft ** 2
    inv3 = dist2 ** -1.5
    acc = (diff * (mass[None, :] * inv3)[:, :, None]).sum(axis=1)
    vel = vel + dt * acc
    return pos + dt * vel, vel


def nbody_simulate(pos, vel, mass, steps=4):
    for _ in range(steps):
        pos, vel = nbody_step(pos, vel, mass)
    kinetic = 0.5 * (mass * (vel ** 2).sum(axis=1)).sum()
    return pos, vel, kinetic


# ---- 3-4. stencils -------------------------------------------------------------------------------------------

def heat_step(u, alpha=0.1, steps=5):
    """Explicit 5-point heat equation; the border stays fixed (written with slice assignment)."""
    for _ in range(steps):
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
        u = u.copy()
        u[1:-1, 1:-1] += alpha * lap
    return u


def grid_inputs(size, seed):
    n = GRID[size]
    return (np.random.default_rng(seed).random((n, n)),)


def heat_periodic(u, alpha=0.1, steps=5):
    """The same equation on a torus, with np.roll."""
    for _ in range(steps):
        u = u + alpha * (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u)
    return u


def wave_1d(u, u_prev, c=0.5, steps=6):
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[:-2] - 2 * u[1:-1] + u[2:]
        u, u_prev = 2 * u - u_prev + c * c * lap, u
    return u


def wave_inputs(size, seed):
    n = GRID[size] ** 2
    u = np.sin(np.linspace(0, 6.28, n)) + 0.01 * np.random.default_rng(seed).standard_normal(n)
    return u, u.copy()


# ---- 5. Game of Life on integers --------------------------------------------------------------------------------

def life(board, steps=3):
    for _ in range(steps):
        n = sum(np.roll(np.roll(board, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        board = ((n == 3) | ((board == 1) & (n == 2))).astype(board.dtype)
    return board


def life_inputs(size, seed):
    n = GRID[size]
    return (np.random.default_rng(seed).integers(0, 2, (n, n)).astype(np.int64),)


# ---- 6. a spring-mass system that clamps when energy blows up -------------------------------------------------

def spring_chain(x, v, k=4.0, dt=0.05, steps=4, limit=50.0):
    for _ in range(steps):
        force = np.zeros_like(x)
        stretch = x[1:] - x[:-1]
        force[:-1] += k * stretch
        force[1:] -= k * stretch
        v = v + dt * force
        x = x + dt * v
    energy = 0.5 * (v ** 2).sum() + 0.5 * k * ((x[1:] - x[:-1]) ** 2).sum()
    if energy > limit:                                        # data-dependent: damp a runaway system
        v = v * (limit / energy)
    return x, v


def spring_inputs(size, seed):
    n = 8 if size == "small" else 100_000
    rng = np.random.default_rng(seed)
    return np.cumsum(np.ones(n)) + 0.01 * rng.standard_normal(n), 0.01 * rng.standard_normal(n)


def spring_hot(size, seed):
    x, v = spring_inputs(size, seed)
    return x, v + 100.0 * np.sqrt(1.0 / len(v))               # total kinetic energy ~5000: the clamp runs


# ---- 7. Lorenz system with RK4 ------------------------------------------------------------------------------------

def lorenz_deriv(s, sigma=10.0, rho=28.0, beta=8.0 / 3.0):
    x, y, z = s[0], s[1], s[2]
    return np.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])


def lorenz_rk4(s, dt=0.01, steps=5):
    for _ in range(steps):
        k1 = lorenz_deriv(s)
        k2 = lorenz_deriv(s + 0.5 * dt * k1)
        k3 = lorenz_deriv(s + 0.5 * dt * k2)
        k4 = lorenz_deriv(s + dt * k3)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s


def lorenz_inputs(size, seed):
    n = 4 if size == "small" else 40_000                    # an ensemble of trajectories, one per column
    return (np.random.default_rng(seed).standard_normal((3, n)) + np.array([[1.0], [1.0], [20.0]]),)


B3 = TraceSpec(("pos", "vel", "mass"))
U = TraceSpec(("u",))

MODELS = [
    Model("nbody_step", nbody_step, _bodies, "n-body gravity step", B3),
    Model("nbody_simulate", nbody_simulate, _bodies, "n-body time loop", B3),
    Model("heat_stencil", heat_step, grid_inputs, "heat equation, slice assignment", U),
    Model("heat_periodic", heat_periodic, grid_inputs, "heat equation, np.roll", U),
    Model("wave_1d", wave_1d, wave_inputs, "leapfrog wave equation", TraceSpec(("u", "u_prev"))),
    Model("game_of_life", life, life_inputs, "integer cellular automaton, sum() builtin", TraceSpec(("board",))),
    Model("spring_chain", spring_chain, spring_inputs, "data-dependent clamp", TraceSpec(("x", "v")),
          other=spring_hot),
    Model("lorenz_rk4", lorenz_rk4, lorenz_inputs, "RK4 integrator", TraceSpec(("s",))),
]
