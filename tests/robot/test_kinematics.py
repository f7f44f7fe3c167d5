"""Kinematics from a URDF: forward against PyBullet's own, inverse to under 0.5 mm, unreachable targets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pybullet
import pybullet_data
import pytest

from robot.arm.kinematics import KinematicChain, UnreachableError, UrdfError, rotation_vector

DATA = Path(pybullet_data.getDataPath())
ARMS = [("kuka_iiwa/model.urdf", "lbr_iiwa_link_7"), ("franka_panda/panda.urdf", "panda_grasptarget")]


@pytest.fixture(scope="module")
def bullet():
    client = pybullet.connect(pybullet.DIRECT)
    yield client
    pybullet.disconnect(client)


def _bullet_link_pose(client: int, body: int, link_name: str, chain: KinematicChain, q: np.ndarray) -> np.ndarray:
    """The link frame PyBullet computes for the chain's joints set to `q`."""
    index_of = {}
    for index in range(pybullet.getNumJoints(body, physicsClientId=client)):
        info = pybullet.getJointInfo(body, index, physicsClientId=client)
        index_of[info[1].decode()] = index
        index_of["link:" + info[12].decode()] = index
    for name, value in zip(chain.names, q, strict=False):
        pybullet.resetJointState(body, index_of[name], value, physicsClientId=client)
    state = pybullet.getLinkState(
        body, index_of["link:" + link_name], computeForwardKinematics=True, physicsClientId=client
    )
    pose = np.eye(4)
    pose[:3, :3] = np.array(pybullet.getMatrixFromQuaternion(state[5])).reshape(3, 3)
    pose[:3, 3] = state[4]
    return pose


@pytest.mark.parametrize("urdf, tip", ARMS)
def test_forward_matches_pybullet(bullet: int, urdf: str, tip: str) -> None:
    chain = KinematicChain.from_urdf(DATA / urdf, tip)
    body = pybullet.loadURDF(str(DATA / urdf), useFixedBase=True, physicsClientId=bullet)
    rng = np.random.default_rng(1)
    for _ in range(20):
        q = rng.uniform(chain.lower, chain.upper)
        expected = _bullet_link_pose(bullet, body, tip, chain, q)
        np.testing.assert_allclose(chain.forward(q), expected, atol=1e-6)


@pytest.mark.parametrize("urdf, tip", ARMS)
def test_inverse_reaches_random_poses_within_half_a_millimetre(urdf: str, tip: str) -> None:
    chain = KinematicChain.from_urdf(DATA / urdf, tip)
    rng = np.random.default_rng(2)
    for _ in range(20):
        target = chain.forward(rng.uniform(chain.lower, chain.upper))
        result = chain.inverse(target, seed=rng.uniform(chain.lower, chain.upper), tolerance_m=1e-5)
        reached = chain.forward(result.q)
        assert np.linalg.norm(reached[:3, 3] - target[:3, 3]) < 0.5e-3
        assert np.linalg.norm(rotation_vector(target[:3, :3] @ reached[:3, :3].T)) < 1e-3
        assert chain.is_within_limits(result.q)


def test_jacobian_matches_finite_differences() -> None:
    chain = KinematicChain.from_urdf(DATA / "franka_panda/panda.urdf", "panda_hand")
    q = np.array([0.3, -0.5, 0.2, -2.0, 0.4, 1.5, 0.1])
    jac = chain.jacobian(q)
    step = 1e-6
    for i in range(chain.dof):
        dq = np.zeros(chain.dof)
        dq[i] = step
        moved = chain.forward(q + dq)
        here = chain.forward(q)
        np.testing.assert_allclose((moved[:3, 3] - here[:3, 3]) / step, jac[:3, i], atol=1e-5)
        np.testing.assert_allclose(rotation_vector(moved[:3, :3] @ here[:3, :3].T) / step, jac[3:, i], atol=1e-5)


def test_unreachable_target_raises_with_distance() -> None:
    chain = KinematicChain.from_urdf(DATA / "kuka_iiwa/model.urdf", "lbr_iiwa_link_7")
    far = np.eye(4)
    far[:3, 3] = [3.0, 0.0, 0.5]
    with pytest.raises(UnreachableError, match="out of reach"):
        chain.inverse(far, restarts=2)


def test_bad_urdf_names_the_problem(tmp_path: Path) -> None:
    with pytest.raises(UrdfError, match="no link named"):
        KinematicChain.from_urdf(DATA / "kuka_iiwa/model.urdf", "gripper")
    with pytest.raises(UrdfError, match="cannot read URDF"):
        KinematicChain.from_urdf(tmp_path / "missing.urdf", "tool")
