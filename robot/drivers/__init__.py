"""Arm drivers: `sim` (the PyBullet arm), `gcode` (Cartesian desktop arms), `joint_serial` (Arduino servo arms).

Pick one by `ArmConfig.serial.protocol` ("gcode" or "joint") or use `sim.SimArm(world)`; the serial
wire formats are pure functions in `joint_wire` and `gcode_wire`, the port handling in `serial_link`.
"""
