from filingqa.checks.table_rows import linearize, linearize_tables

SEGMENTS = """Net sales were as follows:

|  |  | Fiscal |  |
|  | 2019 | 2018 | 2017 |
|  |  | (in millions) |  |
| Transportation Solutions: |  |  |  |
| Automotive | $ 5,686 | $ 6,092 | $  5,228 |
| Sensors | 914 | 918 | 814 |
| Total Transportation Solutions | 6,600 | 7,010 | 6,042 |
| Communications Solutions: |  |  |  |
| Appliances | 680 | 774 | 676 |
|  | 680 | 774 | 676 |
| Total | $ 7,280 | $ 7,784 | $ 6,718 |

Amounts are unaudited."""


def test_each_row_names_its_columns() -> None:
    text = linearize_tables(SEGMENTS)
    assert "Communications Solutions / Appliances: 2019 = 680; 2018 = 774; 2017 = 676" in text
    assert "Transportation Solutions / Automotive: 2019 = $5,686; 2018 = $6,092" in text


def test_spanning_header_rows_become_the_caption() -> None:
    lines = linearize_tables(SEGMENTS).splitlines()
    assert "Fiscal (in millions)" in lines


def test_total_row_closes_its_section_and_unlabelled_rows_are_subtotals() -> None:
    text = linearize_tables(SEGMENTS)
    assert "Communications Solutions (subtotal): 2019 = 680" in text
    assert "\nTotal: 2019 = $7,280; 2018 = $7,784; 2017 = $6,718" in text


def test_text_around_tables_is_kept() -> None:
    text = linearize_tables(SEGMENTS)
    assert text.startswith("Net sales were as follows:\n\n")
    assert text.endswith("\n\nAmounts are unaudited.")


def test_values_keep_the_filings_notation_without_alignment_spaces() -> None:
    rows = [["", "2023", "2022"], ["Purchases", "( 412.6)", "$ (1,936)"], ["Rate", "(2.5%)", "3%"]]
    assert linearize(rows) == [
        "Purchases: 2023 = (412.6); 2022 = $(1,936)",
        "Rate: 2023 = (2.5%); 2022 = 3%",
    ]


def test_column_headers_over_several_rows_are_joined() -> None:
    rows = [
        ["", "As reported", "Adjustments"],
        ["", "$", "$"],
        ["Deferred revenue", "24,264", "(1,945)"],
    ]
    assert linearize(rows) == ["Deferred revenue: As reported $ = 24,264; Adjustments $ = (1,945)"]


def test_markdown_separator_rows_are_ignored() -> None:
    table = "| (in millions) | 2024 | 2023 |\n|---|---:|---:|\n| Capex | 412.6 | 380.1 |"
    assert linearize_tables(table) == "(in millions)\nCapex: 2024 = 412.6; 2023 = 380.1"


def test_tables_without_numeric_rows_stay_as_they_were() -> None:
    table = "| Name | Title |\n| J. Doe | Chief Financial Officer |"
    assert linearize_tables(table) == table


def test_years_in_a_header_row_are_not_data_and_its_label_cell_is_a_caption() -> None:
    rows = [["Year ended", "2024", "2023"], ["Revenue", "1,204.5", "1,100.0"]]
    assert linearize(rows) == ["Year ended", "Revenue: 2024 = 1,204.5; 2023 = 1,100.0"]
