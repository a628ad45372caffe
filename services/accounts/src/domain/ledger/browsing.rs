//! The member's movements of a month, a page at a time: the page asked for, the page
//! answered and the use case that reads them.

use super::super::MemberId;
use super::{Ledger, Month, Movement};
use crate::error::{AccountsError, Result};

/// Which page of a month's movements, and how many per page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    /// 1..=[`PageRequest::MAX_PAGE`]
    page: u32,
    /// 1..=[`PageRequest::MAX_SIZE`]
    size: u32,
}

impl PageRequest {
    pub const DEFAULT_SIZE: u32 = 10;
    pub const MAX_SIZE: u32 = 100;
    pub const MAX_PAGE: u32 = 10_000;

    /// `page` 0 means the first, `size` 0 the default; anything else out of range is refused
    /// with the Spanish text of the field.
    pub fn parse(page: i32, size: i32) -> Result<Self> {
        let page = match u32::try_from(page) {
            Ok(0) => 1,
            Ok(page) if page <= Self::MAX_PAGE => page,
            _ => {
                return Err(AccountsError::InvalidField {
                    field: "page",
                    message: "Elige una página válida.",
                });
            }
        };
        let size = match u32::try_from(size) {
            Ok(0) => Self::DEFAULT_SIZE,
            Ok(size) if size <= Self::MAX_SIZE => size,
            _ => {
                return Err(AccountsError::InvalidField {
                    field: "page_size",
                    message: "Elige un tamaño de página válido.",
                });
            }
        };
        Ok(Self { page, size })
    }

    pub fn page(self) -> u32 {
        self.page
    }

    pub fn size(self) -> u32 {
        self.size
    }

    /// Rows before this page.
    pub fn offset(self) -> i64 {
        i64::from(self.page - 1) * i64::from(self.size)
    }
}

/// One page of a member's movements in a month, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MovementsPage {
    pub movements: Vec<Movement>,
    pub request: PageRequest,
    /// Movements in the whole month.
    pub total_count: i64,
}

impl MovementsPage {
    /// Pages in the month (0 when it has no movements).
    pub fn total_pages(&self) -> i64 {
        let size = i64::from(self.request.size);
        (self.total_count + size - 1) / size
    }
}

impl Ledger {
    /// One page of the member's movements in `month`, newest first;
    /// [`AccountsError::NoClubAccount`] without a club account.
    pub async fn movements(
        &self,
        member_id: &MemberId,
        month: Month,
        page: PageRequest,
    ) -> Result<MovementsPage> {
        if self.store.balance(member_id).await?.is_none() {
            return Err(AccountsError::NoClubAccount);
        }
        let (from, to) = (month.start(), month.end());
        let total_count = self
            .store
            .count_movements_between(member_id, from, to)
            .await?;
        let movements = if page.offset() < total_count {
            self.store
                .movements_between(member_id, from, to, page.size(), page.offset())
                .await?
        } else {
            Vec::new()
        };
        Ok(MovementsPage {
            movements,
            request: page,
            total_count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_one_based_ten_by_default_and_bounded() {
        let first = PageRequest::parse(0, 0).unwrap();
        assert_eq!((first.page(), first.size(), first.offset()), (1, 10, 0));
        let third = PageRequest::parse(3, 25).unwrap();
        assert_eq!(third.offset(), 50);
        assert!(PageRequest::parse(10_000, 100).is_ok());
        for (page, size) in [(-1, 0), (10_001, 0), (1, 101), (1, -3)] {
            assert!(PageRequest::parse(page, size).is_err(), "{page} {size}");
        }
        let page = |total_count| MovementsPage {
            movements: vec![],
            request: first,
            total_count,
        };
        assert_eq!(page(0).total_pages(), 0);
        assert_eq!(page(10).total_pages(), 1);
        assert_eq!(page(13).total_pages(), 2);
    }
}
