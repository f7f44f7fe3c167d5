"""The arm layer: the `Arm` interface, its settings, kinematics, the planner, trajectories and drivers."""

from robot.arm.config import ArmConfig, SerialConfig
from robot.arm.interface import Arm, ArmStatus

__all__ = ["Arm", "ArmConfig", "ArmStatus", "SerialConfig"]
