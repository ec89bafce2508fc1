"""explain/warp_picture.py on hand-made traces: banks and sectors worked out by hand from each
lane's offset (bank = (offset / 4) % 32, sector = address // 32), conflicts flagged in red, the
rows chosen, and the SVG well-formed XML (xml.etree). No build needed."""
import os
import tempfile
import unittest
import xml.etree.ElementTree as ET

from explain import warp_picture

SVG = '{http://www.w3.org/2000/svg}'
BASE = 0x7f0000001000  # a global address at the start of a sector


def access(kind, lanes, size=4, location='lab.cu:7', region=None):
    return {'kind': kind, 'bytes': size, 'region': region or ('global' if kind.startswith('global') else 'dynamic'),
            'location': location, 'pc': '0x1', 'lanes': lanes}


def trace(*accesses):
    return {'label': 'f', 'kernel': 'f_kernel', 'block': 0, 'warp': 0, 'accesses': list(accesses)}


ROW = access('shared_load', [4 * lane for lane in range(32)], location='k.cu:1')           # word l: bank l
COLUMN = access('shared_store', [128 * lane for lane in range(32)], location='k.cu:2')     # all on bank 0
STRIDE2 = access('shared_load', [8 * lane for lane in range(32)], location='k.cu:3')       # lanes l, l+16 share
BROADCAST = access('shared_load', [40] * 32, location='k.cu:4')                            # one word
COALESCED = access('global_load', [BASE + 4 * lane for lane in range(32)], location='k.cu:5')
SCATTERED = access('global_load', [BASE + 64 * lane for lane in range(32)], location='k.cu:6')
HALF = access('global_store', [BASE + 4 * lane if lane < 16 else None for lane in range(32)], location='k.cu:7')
WIDE = access('shared_load', [8 * lane for lane in range(32)], size=8, location='k.cu:8')  # 2 phases of 16


def groups(svg):
    """{access index: the <g> element} of the rendered rows."""
    root = ET.fromstring(svg)
    return {int(g.get('id').split('-')[1]): g for g in root.iter(SVG + 'g')}


def lines_by_colour(group):
    found = {}
    for line in group.iter(SVG + 'line'):
        found[line.get('stroke')] = found.get(line.get('stroke'), 0) + 1
    return found


def texts(element):
    return [t.text for t in element.iter(SVG + 'text')]


class Costs(unittest.TestCase):
    def test_banks_and_wavefronts_by_hand(self):
        self.assertEqual(warp_picture.shared_cost(ROW)['wavefronts'], 1)
        c = warp_picture.shared_cost(COLUMN)  # 32 words, all bank 0: 32 wavefronts
        self.assertEqual((c['wavefronts'], c['conflicts'], c['worst']), (32, 31, 32))
        self.assertEqual(c['hot'], {(0, 0): 32})
        c = warp_picture.shared_cost(STRIDE2)  # word 2l: bank 2l % 32, each even bank twice
        self.assertEqual((c['wavefronts'], c['conflicts'], c['worst']), (2, 1, 2))
        self.assertEqual(set(c['hot']), {(0, bank) for bank in range(0, 32, 2)})
        self.assertEqual(warp_picture.shared_cost(BROADCAST)['wavefronts'], 1)
        c = warp_picture.shared_cost(WIDE)  # 8 bytes: lanes 0-15 then 16-31, 32 words each, no conflict
        self.assertEqual((c['wavefronts'], c['conflicts'], c['phase_lanes']), (2, 0, 16))

    def test_lanes_are_joined_to_their_banks(self):
        _, links = warp_picture.targets_of(STRIDE2)
        self.assertEqual({lane: [bank for bank, _ in t] for lane, t in links.items()},
                         {lane: [(2 * lane) % 32] for lane in range(32)})
        self.assertTrue(all(bad for t in links.values() for _, bad in t))
        _, links = warp_picture.targets_of(ROW)
        self.assertEqual({lane: t for lane, t in links.items()}, {lane: [(lane, False)] for lane in range(32)})
        _, links = warp_picture.targets_of(WIDE)  # a lane's 8 bytes are two words, two banks
        self.assertEqual(links[3], [(6, False), (7, False)])

    def test_sectors_by_hand(self):
        self.assertEqual(len(warp_picture.global_cost(COALESCED)['sectors']), 4)
        g = warp_picture.global_cost(SCATTERED)
        self.assertEqual((len(g['sectors']), g['best']), (32, 4))
        slots, links = warp_picture.targets_of(SCATTERED)
        self.assertEqual(slots[5][0], 'sector +10')  # lane 5 at +320 bytes: the tenth sector on
        self.assertEqual(links[5], [(5, True)])
        self.assertEqual(warp_picture.cost_line(HALF), '2 sectors per request (the fewest for these 64 bytes)')

    def test_captions(self):
        self.assertEqual(warp_picture.cost_line(ROW), '1 wavefront')
        self.assertEqual(warp_picture.cost_line(COLUMN), '32 wavefronts (31 conflicts): 32-way conflict')
        self.assertEqual(warp_picture.cost_line(STRIDE2), '2 wavefronts (1 conflicts): 2-way conflict')
        self.assertEqual(warp_picture.cost_line(SCATTERED), '32 sectors per request (4 would carry these 128 bytes)')
        atomic = access('shared_atomic', [0] * 16 + [4 * lane for lane in range(16)])
        self.assertEqual(warp_picture.cost_line(atomic), '16 distinct addresses: up to 17 lanes on one, which take turns')


class Picture(unittest.TestCase):
    def test_conflicts_are_drawn_red_and_named(self):
        svg = warp_picture.render(trace(COALESCED, ROW, COLUMN, STRIDE2), 'lab 04 <v2> & co')
        rows = groups(svg)  # well-formed, and the title's < and & escaped
        self.assertEqual(sorted(rows), [0, 1, 2, 3])
        self.assertEqual(lines_by_colour(rows[2]), {warp_picture.BAD: 32})
        self.assertEqual(lines_by_colour(rows[1]), {warp_picture.OK: 32})
        self.assertEqual(lines_by_colour(rows[3]), {warp_picture.BAD: 32})
        self.assertIn('32-way', texts(rows[2]))
        self.assertEqual(texts(rows[3]).count('2-way'), 16)
        self.assertIn('bank 31', texts(rows[1]))
        self.assertIn('lane 5  byte 640', texts(rows[2]))
        self.assertIn('4 sectors per request (the fewest for these 128 bytes)', texts(rows[0]))
        self.assertEqual(ET.fromstring(svg).find(SVG + 'title').text, 'lab 04 <v2> & co')

    def test_a_static_variable_is_named(self):
        tile = access('shared_load', [4 * lane for lane in range(32)], region='static')
        tile['variable'] = 'lab05::(anonymous namespace)::blelloch_kernel<false>(int const*, int*, int)::tile'
        rows = groups(warp_picture.render(trace(tile), 't'))
        self.assertIn('#1  shared_load, 4 bytes a lane (__shared__ tile)  ·  lab.cu:7', texts(rows[0]))
        self.assertIn("left: each lane's byte offset into tile", texts(rows[0]))

    def test_idle_lanes_have_no_line(self):
        rows = groups(warp_picture.render(trace(HALF), 't'))
        self.assertEqual(lines_by_colour(rows[0]), {warp_picture.OK: 16})
        self.assertIn('lane 20  —', texts(rows[0]))
        self.assertIn('16 of 32 lanes active', texts(rows[0]))

    def test_the_telling_rows_are_chosen(self):
        # 40 accesses: the same coalesced load and row store over and over, one conflict, one
        # scattered load: each line once, the costly ones whatever their place, in trace order.
        accesses = [COALESCED, ROW] * 18 + [COLUMN, COALESCED, SCATTERED, ROW]
        self.assertEqual(warp_picture.choose(accesses), [0, 1, 36, 38])
        many = [dict(COLUMN, location=f'k.cu:{i}') for i in range(12)]
        self.assertEqual(len(warp_picture.choose(many)), warp_picture.MOST_ROWS)

    def test_nothing_to_draw(self):
        svg = warp_picture.render({'label': 'f', 'kernel': '', 'block': 0, 'warp': 0, 'accesses': []}, 't')
        self.assertIn('no launch had this label', ' '.join(texts(ET.fromstring(svg))))

    def test_write(self):
        with tempfile.TemporaryDirectory() as scratch:
            path = warp_picture.write(trace(ROW), os.path.join(scratch, 'results', 'w.svg'), 'title')
            ET.parse(path)


if __name__ == '__main__':
    unittest.main()
