"""The arm layer: the `Arm` interface, its settings, kinematics, the planner, trajectories and drivers."""

from robot.arm.config import ArmConfig, SerialConfig
from robot.arm.interface import Arm, ArmCommandError, ArmResetError, ArmStatus

__all__ = ["Arm", "ArmCommandError", "ArmConfig", "ArmResetError", "ArmStatus", "SerialConfig"]
