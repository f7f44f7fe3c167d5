/*
  c4arm_joint: Arduino firmware for a hobby servo arm that plays Connect 4.
  Speaks the c4arm joint line protocol, version 2 (host side: robot/arm/drivers/joint_wire.py).

  Wiring (change the tables below to match your arm): five hobby servos on pins 3, 5, 6, 9, 10
  (base yaw, shoulder, elbow, wrist pitch, wrist yaw), a suction pump on pin 7 and its release
  valve on pin 8 (through a transistor or a relay board, never straight from the pin).
  Serial: 115200 baud, 8-N-1.

  PROTOCOL
  Lines of ASCII ending in '\n'. Every line is  <body>*<XX>  where XX is the XOR of all bytes of
  <body>, as two upper-case hex digits. A line with a wrong checksum is ignored (the host repeats it).

  Host to arm:  <seq> <NAME> [args]      seq 1..9999, a new one per command; 0 only for HELLO
    HELLO <host>               -> OK C4ARM 2 <dof> <queue_size> <boot>
    STATUS                     -> OK <IDLE|MOVING|STOPPED> <gripping 0|1> <queued> <a1> .. <an>
    MOVE <dt_ms> <a1> .. <an>  -> OK <free slots>   queue: reach angles a (centidegrees) in dt_ms
    HOME                       -> OK <free slots>   queue the move to HOME_CDEG
    GRIP                       -> OK <1|0>          pump on (1: a disc is held; no sensor here: 1)
    RELEASE                    -> OK                pump off, valve open
    STOP                       -> OK                halt now, empty the queue, refuse MOVE until HOME
  Arm to host:  <seq> OK [values]   or   <seq> ERR <code> <text>
    codes: 1 unknown command, 2 bad arguments, 3 queue full, 4 joint limit, 5 stopped,
           6 restarted: say HELLO
  Each seq runs once: a command with the same seq as the previous one is not run again, its stored
  answer is sent again (the host repeats a command whose answer it missed). HELLO (seq 0) is never
  stored; a HELLO from a new host session (its <host> number differs) forgets the stored answer, so
  two host sessions in a row never mix up their seqs. <boot> counts power-ups in EEPROM, so a host
  that reconnects tells a reset arm from a cable glitch. Until the first HELLO after power-up every
  command but STOP is refused with code 6: a reset with the port left open shows at the next command.
  STOP runs in any state.
  Between queued points the joints move linearly in time; a new point starts where the last ended.
*/

#include <EEPROM.h>
#include <Servo.h>

const uint8_t DOF = 5;
const uint8_t QUEUE_SIZE = 16;
const uint8_t SERVO_PINS[DOF] = {3, 5, 6, 9, 10};
const uint8_t PUMP_PIN = 7;
const uint8_t VALVE_PIN = 8;
// Joint angle 0 is servo angle ZERO_DEG; DIRECTION flips servos mounted the other way round.
const float ZERO_DEG[DOF] = {90.0, 90.0, 90.0, 90.0, 90.0};
const int8_t DIRECTION[DOF] = {1, 1, -1, 1, 1};
const long LOWER_CDEG[DOF] = {-10000, -4000, -6800, -17700, -17700};
const long UPPER_CDEG[DOF] = {10000, 8500, 9100, 17700, 17700};
const long HOME_CDEG[DOF] = {7700, -1600, 2660, -1060, 1320};
const unsigned long HOME_MS = 3000;
const uint8_t LINE_MAX = 96;
const uint8_t REPLY_MAX = 96;
const uint8_t HOST_MAX = 12;
const int BOOT_ADDRESS = 0;  // EEPROM bytes 0..1: the boot counter

struct Point {
  long cdeg[DOF];
  unsigned long duration_ms;
};

Servo servos[DOF];
Point queue[QUEUE_SIZE];
uint8_t queue_head = 0, queue_count = 0;
long start_cdeg[DOF], current_cdeg[DOF];
bool moving = false, stopped = false, gripping = false;
unsigned long move_started_ms = 0;
Point active;

char line[LINE_MAX + 1];
uint8_t line_length = 0;
bool line_overflow = false;
long last_seq = -1;
char last_reply[REPLY_MAX + 24];  // room for "<seq> " before a result
char reply[REPLY_MAX + 24];
unsigned int boot;
char host_session[HOST_MAX + 1] = "";  // empty until a host says HELLO after power-up

uint8_t checksum(const char *text) {
  uint8_t value = 0;
  while (*text) value ^= (uint8_t)*text++;
  return value;
}

void send_framed(const char *body) {
  char hex[3];
  sprintf(hex, "%02X", checksum(body));
  Serial.print(body);
  Serial.print('*');
  Serial.print(hex);
  Serial.print('\n');
}

void write_servos() {
  for (uint8_t j = 0; j < DOF; j++) {
    float servo_deg = ZERO_DEG[j] + DIRECTION[j] * current_cdeg[j] / 100.0;
    servos[j].writeMicroseconds(500 + (int)(servo_deg * 2000.0 / 180.0));
  }
}

void append(char *text, const char *format, long value) {
  uint8_t used = strlen(text);
  snprintf(text + used, REPLY_MAX - used, format, value);
}

bool enqueue(const long *cdeg, unsigned long duration_ms) {
  if (queue_count >= QUEUE_SIZE) return false;
  Point &point = queue[(queue_head + queue_count) % QUEUE_SIZE];
  for (uint8_t j = 0; j < DOF; j++) point.cdeg[j] = cdeg[j];
  point.duration_ms = duration_ms;
  queue_count++;
  return true;
}

// Runs one command; writes "OK ..." or "ERR ..." (without the seq) into out.
void run_command(const char *name, char **args, uint8_t arg_count, char *out) {
  out[0] = '\0';
  if (!strcmp(name, "HELLO")) {
    snprintf(out, REPLY_MAX, "OK C4ARM 2 %d %d %u", DOF, QUEUE_SIZE, boot);
  } else if (!strcmp(name, "STATUS")) {
    strcpy(out, stopped ? "OK STOPPED" : (moving || queue_count ? "OK MOVING" : "OK IDLE"));
    append(out, " %ld", gripping ? 1 : 0);
    append(out, " %ld", queue_count + (moving ? 1 : 0));
    for (uint8_t j = 0; j < DOF; j++) append(out, " %ld", current_cdeg[j]);
  } else if (!strcmp(name, "MOVE")) {
    if (stopped) { strcpy(out, "ERR 5 stopped"); return; }
    if (arg_count != DOF + 1 || atol(args[0]) <= 0) { strcpy(out, "ERR 2 bad arguments"); return; }
    long cdeg[DOF];
    for (uint8_t j = 0; j < DOF; j++) {
      cdeg[j] = atol(args[j + 1]);
      if (cdeg[j] < LOWER_CDEG[j] || cdeg[j] > UPPER_CDEG[j]) { strcpy(out, "ERR 4 joint limit"); return; }
    }
    if (!enqueue(cdeg, atol(args[0]))) { strcpy(out, "ERR 3 queue full"); return; }
    strcpy(out, "OK");
    append(out, " %ld", QUEUE_SIZE - queue_count);
  } else if (!strcmp(name, "HOME")) {
    stopped = false;
    if (!enqueue(HOME_CDEG, HOME_MS)) { strcpy(out, "ERR 3 queue full"); return; }
    strcpy(out, "OK");
    append(out, " %ld", QUEUE_SIZE - queue_count);
  } else if (!strcmp(name, "GRIP")) {
    digitalWrite(VALVE_PIN, LOW);
    digitalWrite(PUMP_PIN, HIGH);
    gripping = true;
    strcpy(out, "OK 1");
  } else if (!strcmp(name, "RELEASE")) {
    digitalWrite(PUMP_PIN, LOW);
    digitalWrite(VALVE_PIN, HIGH);
    gripping = false;
    strcpy(out, "OK");
  } else if (!strcmp(name, "STOP")) {
    queue_count = 0;
    moving = false;
    stopped = true;
    strcpy(out, "OK");
  } else {
    strcpy(out, "ERR 1 unknown command");
  }
}

void handle_line() {
  char *star = strrchr(line, '*');
  if (star == NULL || strlen(star + 1) != 2) return;
  *star = '\0';
  if (strtol(star + 1, NULL, 16) != checksum(line)) return;  // garbled: the host repeats it
  char *tokens[DOF + 4];
  uint8_t count = 0;
  for (char *token = strtok(line, " "); token != NULL && count < DOF + 4; token = strtok(NULL, " ")) tokens[count++] = token;
  if (count < 2) return;
  long seq = atol(tokens[0]);
  if (!strcmp(tokens[1], "HELLO") && count > 2 && strncmp(tokens[2], host_session, HOST_MAX)) {
    strncpy(host_session, tokens[2], HOST_MAX);  // a new host session: forget the stored answer
    host_session[HOST_MAX] = '\0';
    last_seq = -1;
  }
  if (seq != 0 && seq == last_seq) {
    send_framed(last_reply);
    return;
  }
  char result[REPLY_MAX + 1];
  if (host_session[0] == '\0' && strcmp(tokens[1], "STOP")) {
    strcpy(result, "ERR 6 restarted: say HELLO");
  } else {
    run_command(tokens[1], tokens + 2, count - 2, result);
  }
  snprintf(reply, sizeof reply, "%ld %s", seq, result);
  if (seq != 0) {
    last_seq = seq;
    strcpy(last_reply, reply);
  }
  send_framed(reply);
}

void read_serial() {
  while (Serial.available()) {
    char c = Serial.read();
    if (c == '\r') continue;
    if (c == '\n') {
      line[line_length] = '\0';
      if (!line_overflow && line_length > 0) handle_line();
      line_length = 0;
      line_overflow = false;
    } else if (line_length < LINE_MAX) {
      line[line_length++] = c;
    } else {
      line_overflow = true;
    }
  }
}

void start_next(unsigned long start_ms) {
  active = queue[queue_head];
  queue_head = (queue_head + 1) % QUEUE_SIZE;
  queue_count--;
  for (uint8_t j = 0; j < DOF; j++) start_cdeg[j] = current_cdeg[j];
  move_started_ms = start_ms;
  moving = true;
}

void update_motion() {
  unsigned long now = millis();
  if (!moving && queue_count > 0) start_next(now);
  if (!moving) return;
  while (now - move_started_ms >= active.duration_ms) {
    for (uint8_t j = 0; j < DOF; j++) current_cdeg[j] = active.cdeg[j];
    if (queue_count == 0) {
      moving = false;
      write_servos();
      return;
    }
    start_next(move_started_ms + active.duration_ms);  // chained points keep their timing
  }
  unsigned long elapsed = now - move_started_ms;
  for (uint8_t j = 0; j < DOF; j++) {
    current_cdeg[j] = start_cdeg[j] + (long)((active.cdeg[j] - start_cdeg[j]) * (float)elapsed / active.duration_ms);
  }
  write_servos();
}

void setup() {
  Serial.begin(115200);
  pinMode(PUMP_PIN, OUTPUT);
  pinMode(VALVE_PIN, OUTPUT);
  EEPROM.get(BOOT_ADDRESS, boot);
  boot++;
  EEPROM.put(BOOT_ADDRESS, boot);
  for (uint8_t j = 0; j < DOF; j++) {
    current_cdeg[j] = HOME_CDEG[j];
    servos[j].attach(SERVO_PINS[j]);
  }
  write_servos();
}

void loop() {
  read_serial();
  update_motion();
}
