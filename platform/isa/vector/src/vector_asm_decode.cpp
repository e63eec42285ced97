// The vector assembler's instructions: the mnemonic table, the suffixes (.m, .b/.h/.w) and
// the operands of each layout.
#include "flynn/platform/errors.h"
#include "vector_assembler.h"

namespace flynn::vec::assembly {

namespace {

struct op_info {
  const char* name;
  op code;
  form f;
};

const op_info op_table[] = {
    {"li", op::li, form::li},         {"mov", op::mov, form::mov},
    {"add", op::add, form::alu},      {"sub", op::sub, form::alu},
    {"mul", op::mul, form::alu},      {"and", op::and_, form::alu},
    {"or", op::or_, form::alu},       {"xor", op::xor_, form::alu},
    {"shl", op::shl, form::alu},      {"shr", op::shr, form::alu},
    {"sra", op::sra, form::alu},      {"fadd", op::fadd, form::falu},
    {"fsub", op::fsub, form::falu},   {"fmul", op::fmul, form::falu},
    {"slt", op::slt, form::alu},      {"seq", op::seq, form::alu},
    {"ld", op::ld, form::ld},         {"st", op::st, form::st},
    {"dbnz", op::dbnz, form::br1},    {"beqz", op::beqz, form::br1},
    {"bnez", op::bnez, form::br1},    {"br", op::br, form::br},
    {"halt", op::halt, form::none},   {"setvl", op::setvl, form::setvl},
    {"setvs", op::setvs, form::setvs}, {"vmset", op::vmset, form::none},
    {"vmnot", op::vmnot, form::none}, {"vmpop", op::vmpop, form::vmpop},
    {"vld", op::vld, form::vld},      {"vst", op::vst, form::vst},
    {"vldx", op::vldx, form::vldx},   {"vstx", op::vstx, form::vstx},
    {"vadd", op::vadd, form::varith}, {"vsub", op::vsub, form::varith},
    {"vmul", op::vmul, form::varith}, {"vdiv", op::vdiv, form::varith},
    {"vand", op::vand, form::varith}, {"vor", op::vor, form::varith},
    {"vxor", op::vxor, form::varith}, {"vshl", op::vshl, form::varith},
    {"vshr", op::vshr, form::varith}, {"vsra", op::vsra, form::varith},
    {"vfadd", op::vfadd, form::vfarith}, {"vfsub", op::vfsub, form::vfarith},
    {"vfmul", op::vfmul, form::vfarith}, {"vcmpeq", op::vcmpeq, form::vcmp},
    {"vcmpne", op::vcmpne, form::vcmp}, {"vcmplt", op::vcmplt, form::vcmp},
    {"vcmpgt", op::vcmpgt, form::vcmp}, {"padd", op::padd, form::pw},
    {"psub", op::psub, form::pw},     {"pcmpeq", op::pcmpeq, form::pw},
    {"pcmpgt", op::pcmpgt, form::pw}, {"pand", op::pand, form::p},
    {"pandn", op::pandn, form::p},    {"por", op::por, form::p},
    {"pmaddwd", op::pmaddwd, form::p},
};

const op_info* find_op(const std::string& name) {
  for (const auto& o : op_table)
    if (name == o.name) return &o;
  return nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> v;
  for (const auto& o : op_table) v.emplace_back(o.name);
  return v;
}

// Operand usage shown in operand-count errors.
const char* usage(form f) {
  switch (f) {
    case form::li: return "rd, imm|label";
    case form::mov: return "rd, ra";
    case form::alu: return "rd, ra, rb|imm";
    case form::falu: return "rd, ra, rb";
    case form::ld: return "rd, [ra+imm]|[ra]+|label";
    case form::st: return "[ra+imm]|[ra]+|label, rb";
    case form::br1: return "ra, label";
    case form::br: return "label";
    case form::none: return "";
    case form::setvl: return "ra|imm  or  setvl rd, ra";
    case form::setvs: return "ra|imm";
    case form::vmpop: return "rd";
    case form::vld: return "vd, [ra+imm]|label";
    case form::vst: return "[ra+imm]|label, vb";
    case form::vldx: return "vd, [ra+imm]|label, vi";
    case form::vstx: return "[ra+imm]|label, vi, vb";
    case form::varith: return "vd, va, vb|rb|imm";
    case form::vfarith: return "vd, va, vb|rb";
    case form::vcmp: return "va, vb|rb|imm";
    case form::pw: return "rd, ra, rb";
    case form::p: return "rd, ra, rb";
  }
  return "";
}

unsigned operand_count(form f) {
  switch (f) {
    case form::none: return 0;
    case form::br: case form::setvl: case form::setvs: case form::vmpop: return 1;
    case form::li: case form::mov: case form::ld: case form::st: case form::br1:
    case form::vld: case form::vst: case form::vcmp: return 2;
    default: return 3;
  }
}

bool maskable(form f) {
  return f == form::vld || f == form::vst || f == form::vldx || f == form::vstx ||
         f == form::varith || f == form::vfarith;
}

}  // namespace

void assembler::instruction(const token& head, const std::vector<token>& labels, const std::vector<operand>& ops,
                            const std::string& text) {
  if (in_data_)
    fail(head.col, "a data directive (.word, .double, .space) in a .data section (instructions belong in .text)",
         quoted(head.s));
  const std::string name = lower(head.s);
  const std::size_t dot = name.find('.');
  const std::string base = name.substr(0, dot);
  const std::string suffix = dot == std::string::npos ? "" : name.substr(dot);
  const unsigned suffix_col = head.col + static_cast<unsigned>(base.size());
  const op_info* info = find_op(base);
  if (!info) fail_hint(head.col, "an instruction mnemonic", did_you_mean(base, op_names()), quoted(head.s));
  instr in;
  in.code = info->code;
  in.line = line_;
  in.text = text;

  const form f = info->f;
  if (f == form::pw) {
    if (suffix.empty())
      fail(head.col, std::string("a width suffix .b, .h or .w (") + info->name + ".b|.h|.w " + usage(f) + ")",
           quoted(head.s));
    if (suffix == ".b") in.width = 8;
    else if (suffix == ".h") in.width = 16;
    else if (suffix == ".w") in.width = 32;
    else fail(suffix_col, "a width suffix .b, .h or .w", quoted(head.s.substr(base.size())));
  } else if (!suffix.empty()) {
    if (maskable(f) && suffix == ".m") {
      in.masked = true;
    } else if (maskable(f)) {
      fail(suffix_col, "no suffix or .m", quoted(head.s.substr(base.size())));
    } else {
      fail(suffix_col, std::string("no suffix (.m is only for vector memory and arithmetic, ") +
                           ".b/.h/.w only for padd, psub, pcmpeq and pcmpgt)",
           quoted(head.s.substr(base.size())));
    }
  }

  const unsigned want = operand_count(f);
  const std::string use =
      std::string(info->name) + (f == form::pw ? ".b|.h|.w" : "") + (*usage(f) ? " " : "") + usage(f);
  check_count(ops, f == form::setvl ? 1 : want, f == form::setvl ? 2 : want, use, head.col);

  define_labels(labels);
  read_operands(f, ops, in);
  prog_.code.push_back(std::move(in));
}

void assembler::read_operands(form f, const std::vector<operand>& ops, instr& in) {
  switch (f) {
    case form::li:
      in.rd = sreg(ops[0]);
      address_expr(ops[1], in.imm, "an integer or a data label");
      break;
    case form::mov:
      in.rd = sreg(ops[0]);
      in.ra = sreg(ops[1]);
      break;
    case form::alu:
      in.rd = sreg(ops[0]);
      in.ra = sreg(ops[1]);
      source2(ops[2], in, false, true, true);
      break;
    case form::falu:
    case form::pw:
    case form::p:
      in.rd = sreg(ops[0]);
      in.ra = sreg(ops[1]);
      in.rb = sreg(ops[2]);
      in.kind = src2::reg;
      break;
    case form::ld:
      in.rd = sreg(ops[0]);
      memory(ops[1], in, true);
      if (in.post_inc && in.rd == in.ra)
        fail(ops[0].col, "a destination register other than the post-incremented base r" + std::to_string(in.ra),
             ops[0].found());
      break;
    case form::st:
    case form::vst:  // (post-increment only for st)
      memory(ops[0], in, f == form::st);
      in.rb = f == form::st ? sreg(ops[1]) : vreg(ops[1]);
      break;
    case form::br1:
      in.ra = sreg(ops[0]);
      target(ops[1]);
      break;
    case form::br:
      target(ops[0]);
      break;
    case form::none:
      break;
    case form::setvl:
      if (ops.size() == 2) {
        in.has_rd = true;
        in.rd = sreg(ops[0]);
        in.ra = sreg(ops[1]);
        in.kind = src2::reg;
        break;
      }
      [[fallthrough]];
    case form::setvs: {
      std::uint8_t n = 0;
      if (ops[0].toks.size() == 1 && register_number(ops[0].toks[0].s, 'r', 16, n)) {
        in.kind = src2::reg;
        in.ra = n;
      } else {
        in.kind = src2::imm;
        in.imm = integer(ops[0], "a scalar register r0..r15 or an integer");
      }
      break;
    }
    case form::vmpop:
      in.rd = sreg(ops[0]);
      break;
    case form::vld:
      in.rd = vreg(ops[0]);
      memory(ops[1], in, false);
      break;
    case form::vldx:
      in.rd = vreg(ops[0]);
      memory(ops[1], in, false);
      in.rb = vreg(ops[2]);
      break;
    case form::vstx:
      memory(ops[0], in, false);
      in.rd = vreg(ops[1]);
      in.rb = vreg(ops[2]);
      break;
    case form::varith:
    case form::vfarith:  // (no immediate)
      in.rd = vreg(ops[0]);
      in.ra = vreg(ops[1]);
      source2(ops[2], in, true, true, f == form::varith);
      break;
    case form::vcmp:
      in.ra = vreg(ops[0]);
      source2(ops[1], in, true, true, true);
      break;
  }
}

}  // namespace flynn::vec::assembly
