//! The pressure projection and its solvers: the MAC grid's Poisson operator, conjugate
//! gradients preconditioned with a multigrid V-cycle, red-black SOR, and the projection that
//! builds the right-hand side and subtracts the gradient.

pub mod multigrid;
pub mod operator;
pub mod project;
pub mod rbsor;
