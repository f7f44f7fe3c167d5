"""The discs in the world: rigid bodies of two colours that fall, settle and are frozen once at rest.

A disc that has stayed still for a moment is made static (mass 0), which keeps stacks stable and the
simulation fast; taking it again (a grip) makes it dynamic. How a disc looks follows its finish (`DiscConfig`):
a cylinder, shinier or duller, or a mesh (`sim.disc_mesh`) for a ring or a speckled disc.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pybullet as p

from sim.config import BoardGeometry, DiscConfig, PhysicsConfig
from sim.disc_mesh import disc_obj, speckle_texture

SPECULAR = {"plain": 0.3, "glossy": 0.9, "matte": 0.0, "translucent": 0.9, "speckled": 0.1, "ring": 0.3}


@dataclass
class _Disc:
    player: int
    is_frozen: bool = False
    still_s: float = 0.0


class Discs:
    """Every disc body of one PyBullet client, with its player (1 or 2) and whether it rests."""

    def __init__(self, client: int, geometry: BoardGeometry, config: DiscConfig, physics: PhysicsConfig) -> None:
        self.client = client
        self.geometry = geometry
        self.config = config
        self.physics = physics
        self.on_spawn: Callable[[int], None] | None = None  # e.g. the arm's gripper ignores the new disc
        self._bodies: dict[int, _Disc] = {}
        self._shape = p.createCollisionShape(
            p.GEOM_CYLINDER,
            radius=geometry.disc_diameter_m / 2,
            height=geometry.disc_thickness_m,
            physicsClientId=client,
        )
        self._looks = [self._look(player) for player in (1, 2)]

    def _look(self, player: int) -> tuple[int, int | None]:
        """(visual shape, texture or None) of a player's discs in the configured finish."""
        config, g, client = self.config, self.geometry, self.client
        colour, specular = config.colours[player - 1], (SPECULAR[config.finish],) * 3
        if config.finish not in ("ring", "speckled"):
            visual = p.createVisualShape(
                p.GEOM_CYLINDER,
                radius=g.disc_diameter_m / 2,
                length=g.disc_thickness_m,
                rgbaColor=colour,
                specularColor=specular,
                physicsClientId=client,
            )
            return visual, None
        mesh = disc_obj(g.disc_diameter_m / 2, g.disc_thickness_m, config.hole_diameter_m / 2)
        texture = None
        if config.finish == "speckled":
            texture = _load_texture(
                client, speckle_texture(colour[:3], np.random.default_rng([config.look_seed, player]))
            )
            colour = (1.0, 1.0, 1.0, 1.0)
        visual = p.createVisualShape(
            p.GEOM_MESH, fileName=str(mesh), rgbaColor=colour, specularColor=specular, physicsClientId=client
        )
        return visual, texture

    def __iter__(self):
        return iter(list(self._bodies))

    def __contains__(self, body: int) -> bool:
        return body in self._bodies

    def spawn(self, player: int, position: np.ndarray, orientation: tuple[float, ...], is_frozen: bool) -> int:
        body = p.createMultiBody(
            0.0 if is_frozen else self.config.mass_kg,
            self._shape,
            self._looks[player - 1][0],
            list(position),
            list(orientation),
            physicsClientId=self.client,
        )
        texture = self._looks[player - 1][1]
        if texture is not None:
            p.changeVisualShape(body, -1, textureUniqueId=texture, physicsClientId=self.client)
        p.changeDynamics(
            body,
            -1,
            lateralFriction=self.config.friction,
            restitution=self.config.restitution,
            rollingFriction=0.0,
            spinningFriction=0.0,
            physicsClientId=self.client,
        )
        self._bodies[body] = _Disc(player, is_frozen)
        if self.on_spawn is not None:
            self.on_spawn(body)
        return body

    def remove(self, body: int) -> None:
        p.removeBody(body, physicsClientId=self.client)
        del self._bodies[body]

    def player(self, body: int) -> int:
        return self._bodies[body].player

    def pose(self, body: int) -> tuple[np.ndarray, np.ndarray]:
        """(xyz, quaternion xyzw) of a disc in the world."""
        position, orientation = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        return np.array(position), np.array(orientation)

    def freeze(self, body: int) -> None:
        p.changeDynamics(body, -1, mass=0.0, physicsClientId=self.client)
        p.resetBaseVelocity(body, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), physicsClientId=self.client)
        self._bodies[body].is_frozen = True

    def unfreeze(self, body: int) -> None:
        p.changeDynamics(body, -1, mass=self.config.mass_kg, physicsClientId=self.client)
        disc = self._bodies[body]
        disc.is_frozen, disc.still_s = False, 0.0

    def update_settling(self, step_s: float, held: int | None) -> None:
        """After a physics step: count how long each free disc has been still; freeze those at rest."""
        physics = self.physics
        for body, disc in self._bodies.items():
            if disc.is_frozen or body == held:
                continue
            velocity, spin = p.getBaseVelocity(body, physicsClientId=self.client)
            is_still = (
                math.hypot(*velocity) < physics.settle_speed_m_s and math.hypot(*spin) < physics.settle_spin_rad_s
            )
            disc.still_s = disc.still_s + step_s if is_still else 0.0
            if disc.still_s >= physics.settle_time_s and physics.freeze_settled:
                self.freeze(body)

    def are_settled(self, held: int | None) -> bool:
        """Whether every disc but `held` has come to rest."""
        settle_time_s = self.physics.settle_time_s
        return all(d.is_frozen or d.still_s >= settle_time_s for b, d in self._bodies.items() if b != held)

    def set_colours(self, config: DiscConfig) -> None:
        """Recolour the players' discs, those in the world included (a new finish reaches new discs only)."""
        self.config = config
        self._looks = [self._look(player) for player in (1, 2)]
        for body, disc in self._bodies.items():
            texture = self._looks[disc.player - 1][1]
            if texture is None:
                p.changeVisualShape(body, -1, rgbaColor=config.colours[disc.player - 1], physicsClientId=self.client)
            else:
                p.changeVisualShape(
                    body, -1, rgbaColor=(1.0, 1.0, 1.0, 1.0), textureUniqueId=texture, physicsClientId=self.client
                )


def _load_texture(client: int, rgb: np.ndarray) -> int:
    """A PyBullet texture of an RGB uint8 image (PyBullet loads textures from files only)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "texture.png"
        cv2.imwrite(str(path), rgb[:, :, ::-1])
        return p.loadTexture(str(path), physicsClientId=client)
