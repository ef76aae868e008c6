"""The command-line reference, rendered from the parser ``eidomap --help`` prints (:func:`eidomap.cli.build_parser`).

``.. eidomap-cli::`` becomes one section per command and per command of a group (``eidomap d20 reach``): its
usage line, what it does, each argument and option with its help, and the parser's epilog (the exit codes, the
command's example), all read from argparse at build time, so the page cannot drift from ``--help``.
"""

from __future__ import annotations

import argparse

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from eidomap.cli import build_parser


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    return [(name, sub) for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for name, sub in action.choices.items()]


def _arguments(parser: argparse.ArgumentParser) -> nodes.option_list:
    formatter = parser._get_formatter()  # expands %(default)s as --help does
    items = nodes.option_list()
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        group = nodes.option_group()
        for spelling in action.option_strings or [action.metavar or action.dest]:
            option = nodes.option("", nodes.option_string(text=spelling))
            if action.option_strings and action.nargs != 0:
                metavar = formatter._format_args(action, formatter._get_default_metavar_for_optional(action))
                option += nodes.option_argument(text=metavar, delimiter=" ")
            group += option
        help_ = formatter._expand_help(action) if action.help else ""
        items += nodes.option_list_item("", group, nodes.description("", nodes.paragraph(text=help_)))
    return items


def _section(document, words: list[str], parser: argparse.ArgumentParser) -> nodes.section:
    title = " ".join(words)
    section = nodes.section(ids=[nodes.make_id("cli-" + "-".join(words))], names=[nodes.fully_normalize_name(title)])
    section += nodes.title(text=title)
    section += nodes.literal_block(text=parser.format_usage().removeprefix("usage: ").strip())
    if parser.description:
        section += nodes.paragraph(text=parser.description)
    section += _arguments(parser)
    if parser.epilog:
        section += nodes.literal_block(text=parser.epilog)
    document.note_implicit_target(section, section)
    for name, sub in _subcommands(parser):
        section += _section(document, [*words, name], sub)
    return section


class CommandLineReference(SphinxDirective):
    """Every command of ``eidomap``, nested as the parser nests them."""

    def run(self) -> list[nodes.Node]:
        parser = build_parser()
        top = _section(self.state.document, [parser.prog], parser)
        return top.children[1:]  # the page's own title stands for ``eidomap``


def setup(app):
    app.add_directive("eidomap-cli", CommandLineReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
